package runner

import (
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var verbs = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// Both rows of the table say every sentence, with the same verbs in the
// same order, so a format string never misses an argument in one language.
func TestEverySentenceIsSaidInBothLanguagesWithTheSameVerbs(t *testing.T) {
	en, zh := reflect.ValueOf(english), reflect.ValueOf(chinese)
	for i := range en.NumField() {
		name := en.Type().Field(i).Name
		a, b := en.Field(i), zh.Field(i)
		if a.Kind() == reflect.Array {
			for j := range a.Len() {
				if a.Index(j).String() == "" || b.Index(j).String() == "" {
					t.Errorf("%s[%d] is missing in a language", name, j)
				}
			}
			continue
		}
		if a.String() == "" || b.String() == "" {
			t.Errorf("%s is missing in a language: %q / %q", name, a.String(), b.String())
			continue
		}
		if va, vb := verbs.FindAllString(a.String(), -1), verbs.FindAllString(b.String(), -1); !slices.Equal(va, vb) {
			t.Errorf("%s: verbs %v in English, %v in Chinese", name, va, vb)
		}
	}
}

func TestLShowsTheRunnersOwnTextInChinese(t *testing.T) {
	m := newModel(t, &fakeEnv{}, "en")
	m = update(m, key("down"), key("down"), RunDone{Chapter: "04", Result: herd()}, key("l"))
	v := m.View()
	for _, want := range []string{"lockstep 工作坊", "已通过 0/7 章", "未改动", "你的文件：", "⏎ 检查"} {
		if !strings.Contains(v, want) {
			t.Errorf("after l, want %q:\n%s", want, v)
		}
	}
	m = update(m, key("l"), key("f"))
	m = update(m, built(m, "04"))
	if !strings.Contains(m.Status("04"), "running the full suite") {
		t.Errorf("after l again, the state in English: %q", m.Status("04"))
	}
	m = update(m, key("l"))
	if !strings.Contains(m.Status("04"), "正在运行完整测试") {
		t.Errorf("the running state in Chinese: %q", m.Status("04"))
	}
}

// v and p start the visualizer in the runner's language: after l, it
// opens in Chinese (LOCKSTEP_LANG, which the visualizer reads).
func TestTheVisualizerOpensInTheRunnersLanguage(t *testing.T) {
	m := update(newModel(t, &fakeEnv{}, "en"), key("l"))
	c := m.inLang(exec.Command("true"))
	if !slices.Contains(c.Env, LangEnv+"=zh") {
		t.Errorf("after l, the visualizer's command has no %s=zh", LangEnv)
	}
	c = update(m, key("l")).inLang(exec.Command("true"))
	if !slices.Contains(c.Env, LangEnv+"=en") {
		t.Errorf("after l again, the visualizer's command has no %s=en", LangEnv)
	}
}
