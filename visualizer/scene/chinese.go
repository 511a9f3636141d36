package scene

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/lockstep-zk/lockstep/event"
)

// The event log in Chinese. A lock event is said in the chapter's words
// (Describe, or the event's own String) in English, and in Chinese by
// ZH.Describe or ChineseLine, with the course's locks' known details (09's
// "2 of 2 leases out", 06's depths) in Chinese too; what no table knows
// (an error's text, a ZooKeeper event type, an op's name: code) stays as it
// is.

// LineIn is how the event log says e in lang ("zh", or English); ""
// leaves the line out.
func (s Scene) LineIn(lang string, e event.Event) string {
	if lang != "zh" {
		return s.Line(e)
	}
	if s.ZH.Describe != nil {
		return s.ZH.Describe(e)
	}
	return ChineseLine(e)
}

// ChineseLine is e as one line of the Chinese log, as event.String is the
// English one: "worker-3 监听 lock-0000000007（get）". A scene's Chinese
// Describe falls back on it.
func ChineseLine(e event.Event) string {
	who := e.Owner
	if who == "" {
		who = "锁"
	}
	if e.Kind == event.Info && e.Node == "" && e.Owner != "" {
		return who + " " + ChineseDetail(e.Detail)
	}
	node := event.Short(e.Node)
	var what string
	switch e.Kind {
	case event.Request:
		what = "请求 " + string(e.Op) + " " + node
	case event.WatchSet:
		what = "监听 " + node + "（" + string(e.Op) + "）"
	case event.Notified:
		what = "收到通知：" + strings.TrimPrefix(e.Detail, "Event") + " " + node
	case event.Waiting:
		what = "排在 " + node + " 后面等待"
	case event.Acquired:
		what = "加锁成功 " + node
		if e.Token != 0 {
			what += fmt.Sprintf("（防护令牌 %d）", e.Token)
		}
	case event.Released:
		what = "释放 " + node
	case event.Lost:
		what = "锁丢失 " + node
	default:
		what = node
	}
	if e.Detail != "" && e.Kind != event.Notified {
		what = strings.TrimSpace(what) + "：" + ChineseDetail(e.Detail)
	}
	return who + " " + strings.TrimSpace(what)
}

// zhDetails are the details the course's locks and scenes give their
// events, in Chinese; each pattern is matched against the whole detail.
var zhDetails = []struct {
	re *regexp.Regexp
	zh string
}{
	{regexp.MustCompile(`^container$`), "容器节点"},
	{regexp.MustCompile(`^takes the gate$`), "拿到闸门"},
	{regexp.MustCompile(`^opens the gate$`), "释放闸门"},
	{regexp.MustCompile(`^(\d+) of (\d+) leases out$`), "已发放 $1/$2 个租约"},
	{regexp.MustCompile(`^our lease$`), "自己的租约"},
	{regexp.MustCompile(`^revocation requested$`), "有人请求撤销"},
	{regexp.MustCompile(`^create reply lost; found our node by its UUID$`), "create 的回复丢了；凭 UUID 找回了自己的节点"},
	{regexp.MustCompile(`^re-entered, depth (\d+)$`), "重入，深度 $1"},
	{regexp.MustCompile(`^left depth (\d+), still held at depth (\d+)$`), "退出深度 $1，回到深度 $2，仍持有锁"},
	{regexp.MustCompile(`^left depth (\d+) of a lost lock$`), "锁已丢失，退出深度 $1"},
	{regexp.MustCompile(`^re-entry refused at depth (\d+): (.*)$`), "深度为 $1 时拒绝重入：$2"},
	{regexp.MustCompile(`^session expired$`), "会话过期"},
	{regexp.MustCompile(`^reads (.*)$`), "读到 $1"},
	{regexp.MustCompile(`^no session for (\S+), a sixth of the session timeout$`), "已失联 $1，达到会话超时的六分之一"},
	{regexp.MustCompile(`^our session was over at Unlock$`), "Unlock 时会话已经结束"},
	{regexp.MustCompile(`^our node was gone at Unlock \(deleted by someone else, or our session expired\)$`), "Unlock 时自己的节点已经不在了（被别人删除，或会话已过期）"},
	{regexp.MustCompile(`^the conn was closed: our session, and our node with it, are gone$`), "连接已关闭：会话和自己的节点都没了"},
}

// ChineseDetail is an event's detail in Chinese where the course's locks
// say it in words of their own, and as it is otherwise.
func ChineseDetail(d string) string {
	for _, t := range zhDetails {
		if t.re.MatchString(d) {
			return t.re.ReplaceAllString(d, t.zh)
		}
	}
	return d
}
