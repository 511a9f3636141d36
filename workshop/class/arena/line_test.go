package arena

import "testing"

func TestACatchsLineNamesBothLearnersInEitherLanguage(t *testing.T) {
	twoInside := Catch{Kind: TwoInside, Writer: "eve", WriterNode: "/a/lock/_c_1-lock-0000000009", Other: "ada", OtherNode: "/a/lock/_c_2-lock-0000000004", Read: 40, ReadVersion: 40, Version: 41}
	goneAfterBob := Catch{Kind: NodeGone, Writer: "ada", WriterNode: "/a/lock/_c_1-lock-0000000003", Other: "bob", OtherNode: "/a/lock/_c_2-lock-0000000004", Read: 5, ReadVersion: 5, Version: 6}
	goneNobodySince := Catch{Kind: NodeGone, Writer: "ada", WriterNode: "/a/lock/_c_1-lock-0000000003", Other: "ada", OtherNode: "/a/lock/_c_1-lock-0000000003", Read: 5, ReadVersion: 5, Version: 5}
	for _, tc := range []struct {
		c        Catch
		lang     string
		want     string
		readable string
	}{
		{twoInside, "en", "two inside: eve's write found ada's (read 40); eve entered out of turn", "two inside, the later node out of turn"},
		{twoInside, "zh", "两个持有者同时进入临界区：eve 写入时发现 ada 已经写过（读到 40）；eve 插队了", "two inside in Chinese"},
		{goneAfterBob, "en", "node gone: ada wrote after its lock node was gone; bob wrote last", "node gone, bob wrote since"},
		{goneAfterBob, "zh", "节点已不在：ada 的锁节点没了，它还在写入；最后写入的是 bob", "node gone in Chinese"},
		{goneNobodySince, "en", "node gone: ada wrote after its lock node was gone; nobody wrote since its read", "node gone, nobody since"},
		{goneNobodySince, "zh", "节点已不在：ada 的锁节点没了，它还在写入；它读过之后没有人写过", "nobody since in Chinese"},
		{twoInside, "", "two inside: eve's write found ada's (read 40); eve entered out of turn", "no language is English"},
	} {
		if got := tc.c.Line(tc.lang); got != tc.want {
			t.Errorf("%s: Line(%q) = %q, want %q", tc.readable, tc.lang, got, tc.want)
		}
	}
}
