package report

import "os"

// Lang is the report's language: flagLang (a --lang value) when given,
// else that of the locale (LC_ALL, then LANG: zh_* → zh), else en.
func Lang(flagLang string) string {
	if flagLang == "" {
		for _, v := range []string{"LC_ALL", "LANG"} {
			if flagLang = os.Getenv(v); flagLang != "" {
				break
			}
		}
	}
	if IsChinese(flagLang) {
		return "zh"
	}
	return "en"
}
