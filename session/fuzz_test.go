package session_test

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/session"
)

const fuzzName = "fuzz.jsonl"

// checkReadError asserts what every read error must be: a *ParseError that
// starts with the file and a line that exists.
func checkReadError(t *testing.T, input []byte, err error) {
	t.Helper()
	var pe *session.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error is not a *ParseError: %T %v", err, err)
	}
	if pe.File != fuzzName || pe.Line < 1 || pe.Line > bytes.Count(input, []byte{'\n'})+1 {
		t.Fatalf("error names %s:%d for a %d-line input: %v", pe.File, pe.Line, bytes.Count(input, []byte{'\n'})+1, err)
	}
	if !strings.HasPrefix(err.Error(), fuzzName+":") {
		t.Fatalf("error does not start with the file: %v", err)
	}
}

// checkRoundTrip asserts that what was read validates, re-encodes, reads
// back equal, and that the encoding is a fixed point.
func checkRoundTrip(t *testing.T, l *session.Log) {
	t.Helper()
	if err := session.Validate(&l.Header, l.Events); err != nil {
		t.Fatalf("a log the reader accepted does not validate: %v", err)
	}
	enc := session.Encode(&l.Header, l.Events)
	back, err := session.Read(bytes.NewReader(enc), fuzzName)
	if err != nil {
		t.Fatalf("re-encoded log does not read: %v\n%s", err, enc)
	}
	if back.Torn != nil {
		t.Fatalf("re-encoded log has a torn line")
	}
	if !reflect.DeepEqual(normalize(back), normalize(l)) {
		t.Fatalf("re-encoded log reads back different:\n%+v\n%+v", back, l)
	}
	if again := session.Encode(&back.Header, back.Events); !bytes.Equal(again, enc) {
		t.Fatalf("encoding is not a fixed point:\n%s\n%s", enc, again)
	}
	if p := session.CompletedPrefix(l.Events); p > 0 && l.Events[p-1].Type != session.TypeTurnEnd {
		t.Fatalf("CompletedPrefix %d does not end at a turn/end", p)
	}
}

// normalize drops what a round trip may legitimately change: the path and
// the torn line.
func normalize(l *session.Log) session.Log {
	n := *l
	n.Path, n.Torn = "", nil
	if len(n.Events) == 0 {
		n.Events = nil
	}
	return n
}

// FuzzHeader feeds arbitrary first lines.
func FuzzHeader(f *testing.F) {
	for _, s := range []string{
		rootHeader,
		`{"type":"session","version":0,"id":"c","createdAt":1,"cwd":"/x","parentSession":"r","origin":"subagent","delegationDepth":1,"agentPreset":"p","parentCallId":"call_1","mode":"fork","extra":{"a":[1]}}`,
		`{"type":"session","version":1,"id":"s","createdAt":1}`,
		`{"type":"session","version":0,"id":"s","createdAt":1,"seedLength":-1}`,
		`{"type":"session","version":0,"id":"s","createdAt":1,"mode":"clone"}`,
		`{"type":"session","version":0,"id":"s","createdAt":1,"parentSession":null,"\u0069d":"t"}`,
		`{"type":"sess`, `[]`, `null`, ``, `{"type":"turn/start","seq":0,"time":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // more than a header line; FuzzLog covers those
		}
		input := append(bytes.Clone(line), '\n')
		l, err := session.Read(bytes.NewReader(input), fuzzName)
		if err != nil {
			checkReadError(t, input, err)
			return
		}
		if len(l.Events) != 0 || l.Header.SeedLength != 0 {
			t.Fatalf("a header alone read as %d events, seedLength %d", len(l.Events), l.Header.SeedLength)
		}
		checkRoundTrip(t, l)
		var h session.Header
		if err := h.UnmarshalJSON(bytes.TrimSuffix(line, []byte{'\r'})); err != nil {
			t.Fatalf("UnmarshalJSON refuses what the reader accepts: %v", err)
		}
	})
}

// FuzzEventLine feeds an arbitrary second line after a valid header:
// plain events, packed rows and garbage.
func FuzzEventLine(f *testing.F) {
	for _, s := range packedLog {
		f.Add([]byte(strings.ReplaceAll(strings.ReplaceAll(s, `"seq0":2`, `"seq0":0`), `"seq0":5`, `"seq0":0`)))
	}
	for _, s := range []string{
		turnStart0,
		`{"type":"x/odd","seq":0,"time":1,"data":{"a":[1,{"b":null}]},"ignorable":true,"sourceEventSeqs":[],"surfaceOp":{"op":"replace"},"zz":1,"seq0":"s"}`,
		`{"type":"assistant/chunk","seq":0,"time":1,"data":{"turn":1,"step":1,"attempt":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}`,
		`{"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[1,2],"texts":["a","\u00e9","\ud83d"]}}`,
		`{"type":"tool-call-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":1,"index":0,"id":null,"name":"n","args":[]}}`,
		`{"type":"reasoning-chunks","seq0":0,"time0":-5,"data":{"turn":1,"step":1,"index":0,"dt":[-1],"texts":["a","b"]}}`,
		`{"type":"","seq":0,"time":1}`, `{"type":"x","seq":0,"time":1} `, `{"type":"x","seq":1,"time":1}`,
		`{"type":"x","seq":0,"time":1`, `[1]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		input := []byte(rootHeader + "\n" + string(line) + "\n")
		l, err := session.Read(bytes.NewReader(input), fuzzName)
		if err != nil {
			checkReadError(t, input, err)
			return
		}
		for i, e := range l.Events {
			if e.Seq != int64(i) {
				t.Fatalf("event %d has seq %d", i, e.Seq)
			}
			if e.Type == session.TypeAssistantChunk && bytes.Contains(line, []byte("-chunks")) {
				if _, err := session.DecodeChunkData(e.Data); err != nil {
					t.Fatalf("an expanded packed delta does not decode: %v\n%s", err, e.Data)
				}
			}
		}
		checkRoundTrip(t, l)
	})
}

// FuzzLog feeds whole logs.
func FuzzLog(f *testing.F) {
	if raw, err := os.ReadFile(runtimeLog); err == nil {
		f.Add(raw)
	}
	f.Add([]byte(lines(append([]string{header(`"seedLength":4`)}, packedLog...)...)))
	f.Add([]byte(lines(rootHeader, turnStart0, userMsg1) + `{"type":"turn/end","seq":2,"ti`))
	f.Add([]byte(lines(rootHeader, turnStart0, "", userMsg1)))
	f.Add([]byte(strings.ReplaceAll(lines(rootHeader, turnStart0, userMsg1, turnEnd2), "\n", "\r\n")))
	f.Add([]byte(lines(header(`"seedLength":9`), turnStart0)))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, input []byte) {
		l, err := session.Read(bytes.NewReader(input), fuzzName)
		if err != nil {
			checkReadError(t, input, err)
			return
		}
		if l.Torn != nil && bytes.HasSuffix(input, []byte{'\n'}) {
			t.Fatalf("a log ending in a newline has a torn line %+v", l.Torn)
		}
		checkRoundTrip(t, l)
	})
}

// FuzzChunkData feeds assistant/chunk payloads to the typed decoder.
func FuzzChunkData(f *testing.F) {
	for _, s := range []string{
		`{"turn":1,"step":1,"attempt":2,"chunk":{"type":"text-delta","index":0,"text":"x"}}`,
		`{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":1,"id":"c","name":"n","argumentsDelta":"{"}}`,
		`{"turn":1,"step":1,"chunk":{"type":"block-end","index":1,"block":{"type":"tool-call","id":"c","name":"n","arguments":"{}"}}}`,
		`{"turn":1,"step":1,"chunk":{"type":"usage","usage":{"inputTokens":1,"outputTokens":2,"cacheReadTokens":3}}}`,
		`{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"m","code":"c","status":500}}}}`,
		`{"turn":1,"step":1,"chunk":{"type":"citation","index":3,"url":"u"}}`,
		`{"turn":1,"step":1,"chunk":{"type":"finish"}}`, `{"turn":1,"chunk":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d session.ChunkData
		if err := d.UnmarshalJSON(data); err != nil {
			return
		}
		enc := d.AppendJSON(nil)
		var back session.ChunkData
		if err := back.UnmarshalJSON(enc); err != nil {
			t.Fatalf("re-encoded chunk data does not decode: %v\n%s", err, enc)
		}
		if again := back.AppendJSON(nil); !bytes.Equal(again, enc) {
			t.Fatalf("chunk encoding is not a fixed point:\n%s\n%s", enc, again)
		}
	})
}
