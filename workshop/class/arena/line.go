package arena

import "fmt"

// lineWords are a catch's words on one row of a screen, in one language.
type lineWords struct {
	twoInside, outOfTurn, nodeGone, wroteLast, nobodySince string
}

var lineEnglish = lineWords{
	twoInside:   "two inside: %s's write found %s's (read %d)",
	outOfTurn:   "; %s entered out of turn",
	nodeGone:    "node gone: %s wrote after its lock node was gone; %s",
	wroteLast:   "%s wrote last",
	nobodySince: "nobody wrote since its read",
}

var lineChinese = lineWords{
	twoInside:   "两个持有者同时进入临界区：%s 写入时发现 %s 已经写过（读到 %d）",
	outOfTurn:   "；%s 插队了",
	nodeGone:    "节点已不在：%s 的锁节点没了，它还在写入；%s",
	wroteLast:   "最后写入的是 %s",
	nobodySince: "它读过之后没有人写过",
}

// Line is the catch on one row of a screen, both names first, in lang
// ("zh" for Chinese, English otherwise). It is shorter than String, which
// logs keep. The host's screen (workshop/class/view) and the visualizer's
// arena panel both show it, so a catch reads the same on both.
func (c Catch) Line(lang string) string {
	w := lineEnglish
	if lang == "zh" {
		w = lineChinese
	}
	switch c.Kind {
	case TwoInside:
		s := fmt.Sprintf(w.twoInside, c.Writer, c.Other, c.Read)
		if o := c.OutOfTurn(); o != "" {
			s += fmt.Sprintf(w.outOfTurn, o)
		}
		return s
	case NodeGone:
		last := w.nobodySince
		if o := c.LastWriter(); o != "" {
			last = fmt.Sprintf(w.wroteLast, o)
		}
		return fmt.Sprintf(w.nodeGone, c.Writer, last)
	}
	return c.String()
}
