package transcript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/transcript"
)

// FuzzRender renders the transcript of any log session.Read accepts, as
// record writes transcript.golden and check compares with it. Nothing may
// panic; an error says "transcript: "; the same log renders to the same
// text; a log of valid UTF-8 renders to valid UTF-8. The seeds are the
// committed fixtures' root logs, session's runtime log and a log of MCP
// calls, one with params past the 120 characters a line shows. To fuzz:
//
//	go test -run '^$' -fuzz '^FuzzRender$' -fuzztime 60s ./transcript
func FuzzRender(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", "*", session.RootFile))
	paths = append(paths, filepath.Join("..", "session", "testdata", "runtime.jsonl"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"type":"session","version":0,"id":"root","createdAt":1}
{"type":"turn/start","seq":0,"time":1,"data":{"turn":1,"trigger":"user"}}
{"type":"mcp/call","seq":1,"time":1,"data":{"turn":1,"step":1,"server":"w","method":"tools/call","params":{"name":"f","arguments":{"b":1,"a":"\u00e9"},"_meta":{"t":1}},"result":{"content":[{"type":"text","text":"sunny"}]}}}
{"type":"mcp/call","seq":2,"time":1,"data":{"turn":1,"step":1,"server":"w","method":"initialize","result":{"serverInfo":{"name":"w","version":"1"}}}}
{"type":"mcp/call","seq":3,"time":1,"data":{"turn":1,"step":1,"server":"w","method":"x","params":[1],"error":{"code":-32601,"message":"no"}}}
{"type":"mcp/call","seq":4,"time":1,"data":{"turn":1,"step":1,"server":"w","method":"x","params":{"ab":"` + strings.Repeat("\u00e9", 100) + `"},"result":{}}}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := session.Read(bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			return
		}
		text, err := transcript.Render([]*session.Log{l})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "transcript: ") {
				t.Fatalf("Render's error does not say transcript: %v", err)
			}
			return
		}
		if again, _ := transcript.Render([]*session.Log{l}); again != text {
			t.Fatalf("the same log renders twice differently:\n%s\nthen\n%s", text, again)
		}
		if utf8.Valid(data) && !utf8.ValidString(text) {
			t.Fatalf("a log of valid UTF-8 renders to invalid UTF-8:\n%q", text)
		}
	})
}
