package zkwire

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
)

func frame(body ...byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

func TestASplitterTellsEachFrameOnceWithItsHead(t *testing.T) {
	stream := slices.Concat(frame(9, 9, 9, 9, 9), frame(1, 2, 3, 4, 5, 6), frame(), frame(7, 8))
	want := []string{"0 [9 9 9 9]", "1 [1 2 3 4]", "2 []", "3 [7 8]"}
	for _, chunk := range []int{len(stream), 1, 2, 3, 5, 7} {
		t.Run(fmt.Sprintf("read %d bytes at a time", chunk), func(t *testing.T) {
			var got []string
			s := Splitter{Head: 4, Frame: func(i int, head []byte) bool {
				got = append(got, fmt.Sprint(i, " ", head))
				return true
			}}
			for p := stream; len(p) > 0; p = p[min(chunk, len(p)):] {
				s.Feed(p[:min(chunk, len(p))])
			}
			if !slices.Equal(got, want) {
				t.Fatalf("told %q, want %q", got, want)
			}
		})
	}
	t.Run("it stops listening once Frame says so", func(t *testing.T) {
		n := 0
		s := Splitter{Head: 4, Frame: func(int, []byte) bool { n++; return false }}
		s.Feed(stream)
		if n != 1 {
			t.Fatalf("told %d frames after Frame returned false, want 1", n)
		}
	})
}

func TestFeedSaysWhereTheFrameThatStoppedItEnds(t *testing.T) {
	// A ping, then a getChildren2 with a byte of path, then a ping again:
	// a proxy that stops at the listing must forward the first ping only.
	ping := frame(0, 0, 0, 1, 0, 0, 0, byte(OpPing))
	listing := frame(0, 0, 0, 2, 0, 0, 0, byte(OpGetChildren2), 42)
	stream := slices.Concat(frame(7), ping, listing, ping) // the handshake first
	for _, chunk := range []int{len(stream), 1, 3, 7, 13} {
		t.Run(fmt.Sprintf("read %d bytes at a time", chunk), func(t *testing.T) {
			var head []byte
			s := Splitter{Head: 8, Frame: func(i int, h []byte) bool {
				op, ok := Opcode(h)
				if i > 0 && ok && op == OpGetChildren2 {
					head = h
					return false
				}
				return true
			}}
			var forwarded []byte
			for p := stream; len(p) > 0; p = p[min(chunk, len(p)):] {
				b := p[:min(chunk, len(p))]
				n := s.Feed(b)
				if head != nil {
					forwarded = append(forwarded, b[:max(0, n-4-len(head))]...)
					break
				}
				if n != len(b) {
					t.Fatalf("Feed read %d bytes of %d, and no Frame call stopped it", n, len(b))
				}
				forwarded = append(forwarded, b...)
			}
			if head == nil {
				t.Fatal("the listing was never told")
			}
			// Everything before the listing goes out, and nothing after it;
			// bytes of the listing itself only if an earlier chunk carried
			// them, before its opcode could be read.
			before := len(frame(7)) + len(ping)
			headEnd := before + 4 + 8
			want := stream[:max(before, (headEnd-1)/chunk*chunk)]
			if !bytes.Equal(forwarded, want) {
				t.Fatalf("forwarded %v, want %v", forwarded, want)
			}
			if s.Feed(ping) != 0 {
				t.Fatal("a stopped Splitter read more bytes")
			}
		})
	}
}

func TestOpcodeReadsARequestsHead(t *testing.T) {
	if op, ok := Opcode([]byte{0, 0, 0, 1, 0, 0, 0, 12}); !ok || op != OpGetChildren2 {
		t.Fatalf("Opcode = %d, %v; want %d", op, ok, OpGetChildren2)
	}
	if _, ok := Opcode([]byte{0, 0, 0, 1, 0, 0, 0}); ok {
		t.Fatal("Opcode of a head too short to have one said ok")
	}
}
