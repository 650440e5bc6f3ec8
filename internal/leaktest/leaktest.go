// Package leaktest is the attacker in agentsnap's tests of where a
// credential may go: a hostile OpenAI-compatible endpoint that answers a
// recording and leaks a key back in one of the ways a server or a model
// can — in the answer, cut across chunks, in a tool call's arguments, in an
// error body, in a response header, or by cutting the connection — together
// with every credential the request carried; and the check that walks the
// files and the output a recording left for any trace of the key.
package leaktest

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Leak is how the endpoint leaks.
type Leak string

// The leaks.
const (
	Text     Leak = "answer text"              // the answer holds the leak in one chunk
	Split    Leak = "answer cut across chunks" // the answer holds it cut into 5-byte chunks
	ToolArgs Leak = "tool call arguments"      // a lookup call's arguments hold it, cut across deltas
	Auth401  Leak = "401 error body"           // every call gets a 401 whose body echoes it
	Server   Leak = "500 error body"           // every call gets a 500 whose body echoes it
	Header   Leak = "response header"          // a normal answer, the leak in a response header
	Hangup   Leak = "cut connection"           // the connection is closed before any answer
	// NetError is no endpoint's: the client's transport fails every
	// request with an error that quotes its URL and headers (see Client).
	NetError Leak = "network error quoting the URL"
)

// ServerLeaks lists the leaks of an endpoint, for tables that cannot
// choose the client (the CLI's); Leaks adds NetError.
var (
	ServerLeaks = []Leak{Text, Split, ToolArgs, Auth401, Server, Header, Hangup}
	Leaks       = append(slices.Clone(ServerLeaks), NetError)
)

// Fails reports whether every model call fails under the leak (outside the
// model: the recording fails unless it keeps live failures).
func (l Leak) Fails() bool { return l == Auth401 || l == Server || l == Hangup || l == NetError }

// Streamed reports whether the leak reaches the answer the model streams,
// so a recording would contain it and must be refused.
func (l Leak) Streamed() bool { return l == Text || l == Split || l == ToolArgs }

// Endpoint is a hostile endpoint; its URL is the base URL's origin.
type Endpoint struct {
	*httptest.Server
	leak Leak
	key  string

	mu       sync.Mutex
	requests int
}

// New starts an endpoint that leaks key (and every credential a request
// carries) the way leak says. It closes when the spec ends.
func New(leak Leak, key string, cleanup func(...any)) *Endpoint {
	e := &Endpoint{leak: leak, key: key}
	e.Server = httptest.NewServer(http.HandlerFunc(e.serve))
	cleanup(e.Server.Close)
	return e
}

// Requests returns how many requests the endpoint got.
func (e *Endpoint) Requests() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.requests
}

// payload is what the endpoint leaks for r: the key and every credential
// the request carried, as it carried them.
func (e *Endpoint) payload(r *http.Request) string {
	parts := []string{e.key}
	for _, h := range []string{"Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key", "Proxy-Authorization"} {
		if v := r.Header.Get(h); v != "" {
			parts = append(parts, v)
		}
	}
	for _, vs := range r.URL.Query() {
		parts = append(parts, vs...)
	}
	// And the query as it was sent: escaped as the base URL wrote it.
	if r.URL.RawQuery != "" {
		parts = append(parts, r.URL.RawQuery)
	}
	return strings.Join(parts, " ")
}

func (e *Endpoint) serve(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	e.requests++
	e.mu.Unlock()
	var body struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	_ = json.NewDecoder(r.Body).Decode(&body)
	leak := e.payload(r)
	answered := len(body.Messages) > 0 && body.Messages[len(body.Messages)-1].Role == "tool"
	switch e.leak {
	case Auth401, Server:
		status := http.StatusUnauthorized
		if e.leak == Server {
			status = http.StatusInternalServerError
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": "Incorrect API key provided: " + leak, "type": "invalid_request_error"}})
		w.Write(b)
		return
	case Hangup:
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return
	case Header:
		w.Header().Set("X-Echo-Credentials", leak)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta string) {
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":%s}]}\n\n", delta)
		w.(http.Flusher).Flush()
	}
	switch {
	case e.leak == ToolArgs && !answered:
		args, _ := json.Marshal(map[string]string{"key": leak})
		send(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_leak","type":"function","function":{"name":"lookup","arguments":""}}]}`)
		for _, piece := range pieces(string(args), 5) {
			b, _ := json.Marshal(piece)
			send(fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}`, b))
		}
		finish(w, "tool_calls")
	case e.leak == Text && !answered:
		sendText(send, []string{"The key is " + leak + "."})
		finish(w, "stop")
	case e.leak == Split && !answered:
		sendText(send, pieces("The key is "+leak+".", 5))
		finish(w, "stop")
	default:
		sendText(send, []string{"Done."})
		finish(w, "stop")
	}
}

func sendText(send func(string), texts []string) {
	send(`{"role":"assistant","content":""}`)
	for _, t := range texts {
		b, _ := json.Marshal(t)
		send(fmt.Sprintf(`{"content":%s}`, b))
	}
}

func finish(w http.ResponseWriter, reason string) {
	fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":%q}]}\n\n", reason)
	fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}}\n\n")
	fmt.Fprint(w, "data: [DONE]\n\n")
	w.(http.Flusher).Flush()
}

// Client returns the HTTP client of the NetError leak: every request fails
// with an error quoting its URL and every header, as a proxy or a custom
// transport may.
func Client() *http.Client {
	return &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		return nil, fmt.Errorf("proxy refused POST %s with headers %v", r.URL, r.Header)
	})}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// pieces cuts s into pieces of n bytes.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// Scenario writes a scenario for the endpoint into root/fixtures/custom/leak
// (no category rules) and returns its folder: one prompt, the lookup tool,
// one attempt per step.
func Scenario(root string) (string, error) {
	dir := filepath.Join(root, "fixtures", "custom", "leak")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "scenario.json"), []byte(`{
  "description": "A live endpoint that leaks a credential back.",
  "prompts": ["Look the release up, then say done."],
  "agent": {"preset": "default", "system": "You are terse.", "tools": ["lookup"]},
  "data": {"release": "v2.4.1"}
}
`), 0o644)
}

// Traces returns where key, or either half of it, shows in the files under
// the folders roots and in the texts: "path" or "output N" for each, so a
// key printed half-redacted counts too. Empty means no trace.
func Traces(key string, roots []string, texts ...string) ([]string, error) {
	needles := []string{key, key[:len(key)/2], key[len(key)/2:]}
	holds := func(b string) bool {
		return slices.ContainsFunc(needles, func(n string) bool { return strings.Contains(b, n) })
	}
	var out []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			b, err := io.ReadAll(f)
			if err != nil {
				return err
			}
			if holds(string(b)) {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for i, t := range texts {
		if holds(t) {
			out = append(out, fmt.Sprintf("output %d", i))
		}
	}
	return out, nil
}
