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

func TestReadFrameReadsOneWholeFrame(t *testing.T) {
	req := frame(0, 0, 0, 1, 0, 0, 0, 12, 42) // xid 1, getChildren2, a byte of body
	r := bytes.NewReader(slices.Concat(req, frame(5)))
	got, err := ReadFrame(r)
	if err != nil || !bytes.Equal(got, req) {
		t.Fatalf("ReadFrame = %v, %v; want %v", got, err, req)
	}
	if op, ok := Opcode(got); !ok || op != OpGetChildren2 {
		t.Fatalf("Opcode = %d, %v; want %d", op, ok, OpGetChildren2)
	}
	if _, ok := Opcode(frame(5)); ok {
		t.Fatal("Opcode of a frame too short to have one said ok")
	}
	if _, err := ReadFrame(bytes.NewReader(binary.BigEndian.AppendUint32(nil, MaxFrame+1))); err == nil {
		t.Fatal("ReadFrame took a length past MaxFrame")
	}
}
