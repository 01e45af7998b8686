package ingest

import (
	"bytes"
	"os"
	"strings"

	"spikescope/model"
)

// MaxLayerMappingBytes bounds a layer-mapping file: msprobe's are a few
// hundred bytes; anything this large is not one.
const MaxLayerMappingBytes = 4 << 20

// ReadLayerMapping reads msprobe's layer-mapping YAML (`msprobe compare -lm
// FILE`): top-level keys are module classes of the target side ("TopLayer"
// for the root), each holding `name: benchmark_name` pairs:
//
//	TopLayer:
//	  network_with_loss: module
//	ParallelTransformerLayer:
//	  attention: self_attention
//
// Only that subset of YAML is read (block mappings of plain or quoted
// scalars, comments, an empty document or `{}`); anything else is an
// InputError naming the line.
func ReadLayerMapping(path string) (*model.LayerMapping, error) {
	const what = "layer-mapping YAML"
	st, err := os.Stat(path)
	if err != nil {
		return nil, statError(path, err)
	}
	if !st.IsDir() && st.Size() > MaxLayerMappingBytes {
		return nil, inputErr(path, nil, "%d bytes is too large for a %s (at most %d MiB)", st.Size(), what, MaxLayerMappingBytes>>20)
	}
	b, err := ReadPipeableFile(path, what, MaxLayerMappingBytes)
	if err != nil {
		return nil, err
	}
	lm, line, problem := parseLayerMapping(b)
	if problem != "" {
		if line > 0 {
			return nil, inputErr(path, nil, "line %d: %s", line, problem)
		}
		return nil, inputErr(path, nil, "%s", problem)
	}
	lm.Path = path
	return lm, nil
}

// parseLayerMapping parses the file's bytes; on failure it returns the
// line (1-based, 0 for the whole file) and the problem.
func parseLayerMapping(b []byte) (*model.LayerMapping, int, string) {
	lm := &model.LayerMapping{Rules: map[string]map[string]string{}}
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, 0, "binary data, expected a layer-mapping YAML (class: {name: name})"
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	class, ruleIndent := "", -1
	for n, raw := range strings.Split(string(b), "\n") {
		line := n + 1
		text := strings.TrimRight(stripYAMLComment(strings.TrimSuffix(raw, "\r")), " \t")
		trimmed := strings.TrimLeft(text, " ")
		if trimmed == "" || trimmed == "---" || trimmed == "..." {
			continue
		}
		indent := len(text) - len(trimmed)
		if strings.HasPrefix(trimmed, "\t") {
			return nil, line, "tab in the indentation (YAML indents with spaces)"
		}
		if trimmed == "{}" && indent == 0 && len(lm.Rules) == 0 && class == "" {
			continue // an empty mapping
		}
		if strings.HasPrefix(trimmed, "- ") || trimmed == "-" {
			return nil, line, "a list item, expected `name: name` pairs below a class"
		}
		if i := strings.Index(trimmed, ": {"); i >= 0 && strings.TrimSpace(trimmed[i+2:]) != "{}" || strings.HasPrefix(trimmed, "{") && trimmed != "{}" {
			return nil, line, "a flow mapping ({…}): write one `name: name` per line below its class"
		}
		key, val, ok := splitYAMLPair(trimmed)
		if !ok {
			return nil, line, "expected `key: value`, found " + quoteShort(trimmed)
		}
		if key == "" {
			return nil, line, "empty key"
		}
		if indent == 0 {
			if _, dup := lm.Rules[key]; dup {
				return nil, line, "class " + key + " is given twice"
			}
			switch val {
			case "", "{}":
			default:
				return nil, line, "class " + key + " must hold `name: name` pairs, found the value " + quoteShort(val)
			}
			class, ruleIndent = key, -1
			lm.Rules[key] = map[string]string{}
			continue
		}
		if class == "" {
			return nil, line, "indented line before any class"
		}
		if ruleIndent < 0 {
			ruleIndent = indent
		} else if indent != ruleIndent {
			return nil, line, "indentation differs from the names above it (nested mappings are not part of a layer mapping)"
		}
		if val == "" || val == "{}" {
			return nil, line, "name " + key + " below " + class + " has no mapped name"
		}
		if _, dup := lm.Rules[class][key]; dup {
			return nil, line, "name " + key + " is given twice below " + class
		}
		lm.Rules[class][key] = val
	}
	return lm, 0, ""
}

// stripYAMLComment drops a comment ("# …" at the start or after a space)
// outside quotes.
func stripYAMLComment(s string) string {
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return s[:i]
		}
	}
	return s
}

// splitYAMLPair splits "key: value" (either side may be quoted).
func splitYAMLPair(s string) (key, val string, ok bool) {
	k, rest, ok := cutYAMLScalar(s)
	if !ok {
		return "", "", false
	}
	rest = strings.TrimLeft(rest, " ")
	if !strings.HasPrefix(rest, ":") {
		return "", "", false
	}
	rest = strings.TrimSpace(rest[1:])
	if rest == "" {
		return k, "", true
	}
	v, tail, ok := cutYAMLScalar(rest)
	if !ok || strings.TrimSpace(tail) != "" {
		if rest == "{}" {
			return k, "{}", true
		}
		return "", "", false
	}
	return k, v, true
}

// cutYAMLScalar reads one scalar at the start of s: quoted, or plain up to
// ": " / a trailing ":".
func cutYAMLScalar(s string) (v, rest string, ok bool) {
	if s == "" {
		return "", "", false
	}
	if s[0] == '\'' || s[0] == '"' {
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			return "", "", false
		}
		return s[1 : 1+end], s[2+end:], true
	}
	if strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") {
		return "", "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ') {
			return strings.TrimSpace(s[:i]), s[i:], true
		}
	}
	return strings.TrimSpace(s), "", true
}

// quoteShort quotes s for a message, shortened.
func quoteShort(s string) string {
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return "\"" + s + "\""
}
