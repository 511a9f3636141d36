package zkwire

import (
	"encoding/binary"
	"testing"
)

// A ConnectResponse is read field by field, its password included; a body
// too short for its password is no ConnectResponse.
func TestParseConnectResponse(t *testing.T) {
	body := binary.BigEndian.AppendUint32(nil, 0)      // protocolVersion
	body = binary.BigEndian.AppendUint32(body, 4000)   // timeOut
	body = binary.BigEndian.AppendUint64(body, 0x1234) // sessionId
	body = binary.BigEndian.AppendUint32(body, 3)      // passwd length
	body = append(body, 'p', 'w', 'd', 0)              // passwd, readOnly
	r, ok := ParseConnectResponse(body)
	if !ok || r.TimeoutMs != 4000 || r.SessionID != 0x1234 || string(r.Passwd) != "pwd" {
		t.Fatalf("ParseConnectResponse = %+v, %v; want 4000 ms, session 0x1234, password pwd", r, ok)
	}
	if _, ok := ParseConnectResponse(body[:21]); ok {
		t.Fatal("a body cut inside the password parsed as a ConnectResponse")
	}
	// ConnectRequest asks for session 0x1234 with its password: sessionId
	// at offset 16, the password's length and bytes after it.
	req := ConnectRequest(4000, 0x1234, []byte("pwd"))
	if len(req) != 4+8+4+8+4+3 || binary.BigEndian.Uint64(req[16:24]) != 0x1234 || string(req[28:]) != "pwd" {
		t.Fatalf("ConnectRequest = %x", req)
	}
}
