// Command servefloor is the floor BenchmarkServeAimock holds agentsnap
// serve to: net/http answering the benchmark's load with the same
// Chat Completions frames, each answer made in advance (a spawning turn's
// when first asked) and written in one flush — what any server answering
// this load must at least do. It prints its base URL, as serve does, and
// runs until it is killed.
//
//	servefloor WORDS CHILDREN
package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
)

func main() {
	words, err1 := strconv.Atoi(arg(1))
	children, err2 := strconv.Atoi(arg(2))
	if err1 != nil || err2 != nil || words < 1 || words > 1e6 || children < 1 || children > 1e4 {
		fmt.Fprintln(os.Stderr, "servefloor: usage: servefloor WORDS CHILDREN (numbers, 1 to 1e6 and 1e4)")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "servefloor:", err)
		os.Exit(1)
	}
	f := &floor{children: children, spawns: map[int][]byte{}}
	f.child = answer(func(b *bytes.Buffer) {
		for i := range words {
			text := "abcde "
			if i == words-1 {
				text = "abcde"
			}
			frame(b, `{"content":`+strconv.Quote(text)+`}`, "null")
		}
	}, "stop")
	f.done = answer(func(b *bytes.Buffer) { frame(b, `{"content":"done"}`, "null") }, "stop")
	fmt.Printf("http://%s/v1\n", ln.Addr())
	fmt.Fprintln(os.Stderr, http.Serve(ln, f))
}

func arg(i int) string {
	if i < len(os.Args) {
		return os.Args[i]
	}
	return ""
}

// floor answers a child with its text, a root's call with results with
// done, and a root's first call of turn N with its spawns.
type floor struct {
	children    int
	child, done []byte
	mu          sync.Mutex
	spawns      map[int][]byte
}

func (f *floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	out := f.done
	switch {
	case r.Header.Get("Agentsnap-Parent") != "":
		out = f.child
	case !bytes.Contains(body, []byte(`"tool_call_id"`)):
		out = f.spawn(body)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(out)
	w.(http.Flusher).Flush()
}

// spawn is the answer to turn N's first call: a tool call per task.
func (f *floor) spawn(body []byte) []byte {
	i := bytes.Index(body, []byte("turn #"))
	var t int
	if i >= 0 {
		fmt.Sscanf(string(body[i:]), "turn #%d.", &t)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.spawns[t]; ok {
		return b
	}
	b := answer(func(b *bytes.Buffer) {
		for i := 1; i <= f.children; i++ {
			args := strconv.Quote(fmt.Sprintf(`{"prompt":"task #%d.%d."}`, t, i))
			frame(b, fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%d_%d","type":"function","function":{"name":"subagent_spawn","arguments":%s}}]}`, i-1, t, i, args), "null")
		}
	}, "tool_calls")
	f.spawns[t] = b
	return b
}

// answer is a whole stream: the role, body's frames, the finish, the usage
// and [DONE].
func answer(body func(*bytes.Buffer), finish string) []byte {
	var b bytes.Buffer
	frame(&b, `{"role":"assistant","content":""}`, "null")
	body(&b)
	frame(&b, `{}`, strconv.Quote(finish))
	b.WriteString(`data: {"id":"chatcmpl-floor","object":"chat.completion.chunk","created":0,"model":"bench-model","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":60,"total_tokens":110}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

func frame(b *bytes.Buffer, delta, finish string) {
	b.WriteString(`data: {"id":"chatcmpl-floor","object":"chat.completion.chunk","created":0,"model":"bench-model","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + "}]}\n\n")
}
