package hint

import (
	"fmt"
	"strings"
)

// Markdown is the facilitator's table of mistakes (docs/workshop.md keeps
// it between the mistakes-table markers; a test checks they agree).
func (t *Table) Markdown() string { return t.MarkdownIn("en") }

// MarkdownIn is the table in lang: "zh" is docs/workshop.zh-CN.md's, from
// each row's Chinese name and GuideZH; anything else is the English one.
// A row with no GuideZH yet leaves its cell empty (a test names it).
func (t *Table) MarkdownIn(lang string) string {
	var b strings.Builder
	if lang == "zh" {
		b.WriteString("| 章节 | 错误 | 测试怎么说 |\n|---|---|---|\n")
		for _, m := range t.Mistakes {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", m.Chapter, m.Name.ZH, m.GuideZH)
		}
		return b.String()
	}
	b.WriteString("| Ch | Mistake | What the tests say |\n|---|---|---|\n")
	for _, m := range t.Mistakes {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", m.Chapter, m.Name.EN, m.Guide)
	}
	return b.String()
}
