package hint

import (
	"fmt"
	"strings"
)

// Markdown is the facilitator's table of mistakes (docs/workshop.md keeps
// it between the mistakes-table markers; a test checks they agree).
func (t *Table) Markdown() string {
	var b strings.Builder
	b.WriteString("| Ch | Mistake | What the tests say |\n|---|---|---|\n")
	for _, m := range t.Mistakes {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", m.Chapter, m.Name.EN, m.Guide)
	}
	return b.String()
}
