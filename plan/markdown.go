package plan

import (
	"encoding/json"
	"strings"
)

// Markdown is PLAN.md: what to run where and why, what is unknown, and
// the expected dump size; in Chinese when zh.
func Markdown(p Plan, zh bool) string {
	t := func(x Text) string {
		if zh && x.Zh != "" {
			return x.Zh
		}
		return x.En
	}
	var b strings.Builder
	if zh {
		b.WriteString("# 下一轮采集计划\n\n")
	} else {
		b.WriteString("# Next-collection plan\n\n")
	}
	if p.Nothing {
		b.WriteString(t(Text{"Nothing is missing: the analysis had every input it needs. Nothing to rerun.",
			"没有缺失数据：分析所需的输入齐全，无需重跑。"}) + "\n")
		return b.String()
	}
	if len(p.Actions) > 0 {
		b.WriteString("## " + t(Text{"What to run", "运行什么"}) + "\n\n")
		for _, a := range p.Actions {
			s := t(a)
			if strings.HasPrefix(s, "  ") {
				b.WriteString("  - " + strings.TrimSpace(s) + "\n")
			} else {
				b.WriteString("- " + s + "\n")
			}
		}
		b.WriteString("\n")
		b.WriteString(usage(p, t))
	}
	if len(p.Unknown) > 0 {
		b.WriteString("## " + t(Text{"Still unknown", "仍未知"}) + "\n\n")
		for _, u := range p.Unknown {
			b.WriteString("- " + t(u) + "\n")
		}
		b.WriteString("\n")
	}
	if len(p.Estimate) > 0 {
		b.WriteString("## " + t(Text{"Dump size (estimate)", "dump 大小（估算）"}) + "\n\n")
		for _, e := range p.Estimate {
			b.WriteString("- " + t(e) + "\n")
		}
		b.WriteString("\n")
	}
	if len(p.Configs) > 0 {
		b.WriteString("## " + t(Text{"Files", "文件"}) + "\n\n")
		for _, c := range p.Configs {
			data, _ := ConfigJSON(c)
			device := c.Device
			if zh && zhDevices[device] != "" {
				device = zhDevices[device]
			}
			b.WriteString("`" + c.Name + "` (" + device + ")\n\n```json\n" + string(data) + "```\n\n")
		}
	}
	return b.String()
}

// zhDevices are the devices of Config.Device in Chinese.
var zhDevices = map[string]string{
	"anomalous": "异常设备", "baseline": "标杆设备", "the baseline device": "标杆设备", "both devices": "两侧设备",
}

// ConfigJSON is the file content of c: indented JSON with a final newline.
func ConfigJSON(c Config) ([]byte, error) {
	data, err := json.MarshalIndent(c.Value, "", "    ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// File is one file of a written plan.
type File struct {
	Name string
	Data []byte
}

// Files are the files of p: PLAN.md first, then the configs; none when
// nothing is missing.
func Files(p Plan, zh bool) ([]File, error) {
	if p.Nothing {
		return nil, nil
	}
	files := []File{{PlanFile, []byte(Markdown(p, zh))}}
	for _, c := range p.Configs {
		data, err := ConfigJSON(c)
		if err != nil {
			return nil, err
		}
		files = append(files, File{c.Name, data})
	}
	return files, nil
}
