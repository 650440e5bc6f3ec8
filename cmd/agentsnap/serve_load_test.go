//go:build unix

// The load the serve benchmarks send (serve_bench_test.go,
// serve_apis_bench_test.go, serve_inproc_bench_test.go): its sessions, its
// bodies in each API, its recording and its checks.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
)

// serveLoad is the benchmark's agent: turns of a root that spawns
// children, words words in each child's answer, streams requests at once.
type serveLoad struct {
	turns, children, words, streams int
	api                             *serveAPI // the model API the load speaks; nil is Chat Completions
}

// serveAPI is how the load speaks one model API: the path of its calls
// (from the server's origin), its bodies, and the check of an answer.
type serveAPI struct {
	path string
	// user is a body with one user message; results the root's call with
	// its children's results.
	user    func(text string) []byte
	results func(prompt string, calls []loadCall, results []string) []byte
	// check checks an answer's body, which was read to its end (EOF).
	check func(l serveLoad, req request, body []byte) error
}

// loadCall is one of the root's spawns.
type loadCall struct{ id, name, args string }

// chatAPI is Chat Completions, the load's default.
var chatAPI = &serveAPI{
	path: "/v1/chat/completions",
	user: func(text string) []byte { return loadBody(userMsg(text)) },
	results: func(prompt string, calls []loadCall, results []string) []byte {
		var tc, tr []any
		for i, c := range calls {
			tc = append(tc, map[string]any{"id": c.id, "type": "function", "function": map[string]string{"name": c.name, "arguments": c.args}})
			tr = append(tr, map[string]string{"role": "tool", "tool_call_id": c.id, "content": results[i]})
		}
		msgs := []any{userMsg(prompt), map[string]any{"role": "assistant", "content": nil, "tool_calls": tc}}
		return loadBody(append(msgs, tr...)...)
	},
	check: serveLoad.checkChat,
}

// speaks is the API the load speaks.
func (l serveLoad) speaks() *serveAPI {
	if l.api == nil {
		return chatAPI
	}
	return l.api
}

func (l serveLoad) requests() int { return l.turns * (l.children + 2) }

const serveBenchSystem = "You are a dispatcher. Spawn one helper per task, then say done."

// answerText is a child's answer: words words of five letters.
func (l serveLoad) answerText() string {
	return strings.TrimSuffix(strings.Repeat("abcde ", l.words), " ")
}

func (l serveLoad) prompt(turn int) string { return fmt.Sprintf("turn #%d.", turn) }

func (l serveLoad) task(turn, i int) string { return fmt.Sprintf("task #%d.%d.", turn, i) }

func (l serveLoad) callID(turn, i int) string { return fmt.Sprintf("call_%d_%d", turn, i) }

func loadBody(messages ...any) []byte {
	b, _ := json.Marshal(map[string]any{"model": "bench-model", "stream": true, "stream_options": map[string]bool{"include_usage": true},
		"messages": append([]any{map[string]string{"role": "system", "content": serveBenchSystem}}, messages...)})
	return b
}

func userMsg(text string) map[string]string {
	return map[string]string{"role": "user", "content": text}
}

// request is one call of the load: its body and the session headers.
type request struct {
	body   []byte
	header map[string]string
}

// turn returns the root's first call of a turn, its children's calls and
// its call with their results.
func (l serveLoad) turn(t int) (first request, children []request, last request) {
	api := l.speaks()
	first = request{body: api.user(l.prompt(t))}
	var calls []loadCall
	var results []string
	for i := range l.children {
		id := l.callID(t, i+1)
		children = append(children, request{body: api.user(l.task(t, i+1)), header: map[string]string{
			wire.HeaderSession: "c" + id, wire.HeaderParent: "root", wire.HeaderCall: id, wire.HeaderMode: "spawn"}})
		calls = append(calls, loadCall{id: id, name: "subagent_spawn", args: l.callArgs(t, i+1)})
		results = append(results, l.answerText())
	}
	last = request{body: api.results(l.prompt(t), calls, results)}
	return first, children, last
}

func (l serveLoad) callArgs(t, i int) string {
	return fmt.Sprintf(`{"prompt":%q}`, l.task(t, i))
}

// run sends the whole load to url, streams at once, and returns each
// request's latency and the time the whole load took. url is the base URL
// the server printed (its origin and /v1); check reads each answer's body.
func (l serveLoad) run(url string, check func(req request, body []byte) error) ([]time.Duration, time.Duration, error) {
	endpoint := strings.TrimSuffix(url, "/v1") + l.speaks().path
	began := time.Now()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: l.streams}}
	var mu sync.Mutex
	var lat []time.Duration
	send := func(r request) error {
		req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(r.body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		for k, v := range r.header {
			req.Header.Set(k, v)
		}
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		if err == nil && check != nil {
			err = check(r, body)
		}
		mu.Lock()
		lat = append(lat, d)
		mu.Unlock()
		return err
	}
	for t := 1; t <= l.turns; t++ {
		first, children, last := l.turn(t)
		if err := send(first); err != nil {
			return nil, 0, err
		}
		work := make(chan request)
		errs := make(chan error, l.streams)
		for range l.streams {
			go func() {
				var err error
				for r := range work {
					if err == nil {
						err = send(r)
					}
				}
				errs <- err
			}()
		}
		for _, c := range children {
			work <- c
		}
		close(work)
		var err error
		for range l.streams {
			err = errors.Join(err, <-errs)
		}
		if err != nil {
			return nil, 0, err
		}
		if err := send(last); err != nil {
			return nil, 0, err
		}
	}
	client.CloseIdleConnections()
	return lat, time.Since(began), nil
}

// driver answers the load as the recording's model: a root's first call
// of a turn with a spawn per task, its next with done, a child with the
// answer text, with usage.
func (l serveLoad) driver() llm.Driver {
	return llm.DriverFunc(func(_ context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
		usage := &session.Usage{InputTokens: 50, OutputTokens: 60}
		msg := session.Message{Role: session.RoleAssistant}
		last := req.Messages[len(req.Messages)-1]
		switch {
		case req.Session.ParentID != "":
			msg.Content = []session.Part{session.TextPart(l.answerText())}
		case last.Role == session.RoleUser:
			var t int
			fmt.Sscanf(last.Text(), "turn #%d.", &t)
			for i := range l.children {
				msg.Content = append(msg.Content, session.Part{Type: session.PartToolCall, ID: l.callID(t, i+1), Name: "subagent_spawn", Arguments: l.callArgs(t, i+1)})
			}
		default:
			msg.Content = []session.Part{session.TextPart("done")}
		}
		return slices.Values(llm.StreamMessage(msg, usage, "")), nil
	})
}

// record writes the fixture serve replays: the load sent in process
// through the wire layer, one stream at a time, answered by driver.
func (l serveLoad) record(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	prompts := make([]string, l.turns)
	for i := range prompts {
		prompts[i] = l.prompt(i + 1)
	}
	sc, _ := json.Marshal(map[string]any{"description": "serve benchmark: a dispatcher spawning many short sessions", "prompts": prompts,
		"agent": map[string]string{"system": serveBenchSystem}})
	if err := os.WriteFile(filepath.Join(dir, "scenario.json"), sc, 0o644); err != nil {
		return err
	}
	one := l
	one.streams = 1
	rt := wire.Runtime("external", func(ctx context.Context, env *wire.Env) error {
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The load's own client, in process.
			resp, err := env.HTTPClient.Transport.RoundTrip(r.WithContext(ctx))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			w.WriteHeader(resp.StatusCode)
			_, _ = io.Copy(w, resp.Body)
		})}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		go srv.Serve(ln)
		defer srv.Close()
		_, _, err = one.run("http://"+ln.Addr().String()+"/v1", nil)
		return err
	})
	_, err := recorder.Record(context.Background(), dir, recorder.Options{Runtime: rt, Driver: l.driver(), Provider: "bench", Model: "bench-model", By: "benchmark"})
	return err
}

// aimockFixtures is aimock's fixture file for the load: the root's calls
// with results matched by their last call's id, first (aimock takes the
// first match), then each prompt and task by its text.
func (l serveLoad) aimockFixtures() []byte {
	var fx []any
	for t := 1; t <= l.turns; t++ {
		fx = append(fx, map[string]any{"match": map[string]string{"toolCallId": l.callID(t, l.children)}, "response": map[string]string{"content": "done"}})
	}
	for t := 1; t <= l.turns; t++ {
		var calls []any
		for i := range l.children {
			calls = append(calls, map[string]string{"id": l.callID(t, i+1), "name": "subagent_spawn", "arguments": l.callArgs(t, i+1)})
		}
		fx = append(fx, map[string]any{"match": map[string]string{"userMessage": l.prompt(t)}, "response": map[string]any{"toolCalls": calls}})
		for i := range l.children {
			fx = append(fx, map[string]any{"match": map[string]string{"userMessage": l.task(t, i+1)}, "response": map[string]string{"content": l.answerText()}})
		}
	}
	b, _ := json.Marshal(map[string]any{"fixtures": fx})
	return b
}

// checkAnswer checks an answer in the load's API.
func (l serveLoad) checkAnswer(req request, body []byte) error {
	return l.speaks().check(l, req, body)
}

// checkChat checks that a child's Chat Completions answer streamed its
// words, each in a delta of its own.
func (l serveLoad) checkChat(req request, body []byte) error {
	if req.header != nil && (bytes.Count(body, []byte("abcde")) != l.words || bytes.Count(body, []byte("data: ")) < l.words) {
		return fmt.Errorf("an answer of another shape: %.300s", body)
	}
	return nil
}
