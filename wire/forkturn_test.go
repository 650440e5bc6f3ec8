package wire_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// forkRunningTurn makes the SDK agent's fork children send their parent's running
// turn too — the root's conversation so far and the answer whose tool call
// created the child — before their own messages: what an agent does that
// hands a fork everything it has, the case the wire layer records as sent
// (a history/replace) while the child's seed stays the completed turns.
// sdkagent forks the completed turns only, as the contract asks, so this
// wrapper rewrites each fork child's request in the agent's client. It
// reads the root's answers whole, so it asks for whole answers; it knows
// the root's running turn only, which is all the fork scenario needs.
func forkRunningTurn(a *sdkagent.Agent) {
	w := &runningTurn{children: map[string]*splice{}}
	wholeAnswers(a)
	a.Client = openai.NewClient(append(slices.Clone(a.Client.Options), option.WithMiddleware(w.middleware))...)
	tag := a.ChildContext
	a.ChildContext = func(ctx context.Context, callID string, fork bool) context.Context {
		return context.WithValue(tag(ctx, callID, fork), childKey{}, child{callID, fork})
	}
}

type childKey struct{}

// child is a child session as forkRunningTurn's middleware tells it from the root.
type child struct {
	callID string
	fork   bool
}

// runningTurn keeps what the root has sent and been answered last, and
// what each fork child gets inserted.
type runningTurn struct {
	mu       sync.Mutex
	sent     []json.RawMessage // the root's last request's messages
	answer   json.RawMessage   // the root's last answer, as the agent sends it back
	children map[string]*splice
}

// splice is what goes into every request of one fork child: running at
// index at, after the inherited messages.
type splice struct {
	at      int
	running []json.RawMessage
}

func (w *runningTurn) middleware(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	body := map[string]json.RawMessage{}
	if err := readJSON(&r.Body, &body); err != nil {
		return nil, fmt.Errorf("forkRunningTurn: the request: %w", err)
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(body["messages"], &msgs); err != nil {
		return nil, fmt.Errorf("forkRunningTurn: the request's messages: %w", err)
	}
	c, isChild := r.Context().Value(childKey{}).(child)
	w.mu.Lock()
	switch {
	case !isChild:
		w.sent = msgs
	case c.fork:
		s, ok := w.children[c.callID]
		if !ok { // the child's first call: its inherited messages, then its prompt
			at := len(msgs) - 1
			s = &splice{at: at, running: append(slices.Clone(w.sent[at:]), w.answer)}
			w.children[c.callID] = s
		}
		msgs = slices.Insert(msgs, s.at, s.running...)
	}
	w.mu.Unlock()
	var err error
	if body["messages"], err = json.Marshal(msgs); err != nil {
		return nil, err
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	resp, err := next(r)
	if err != nil || isChild || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	var res openai.ChatCompletion
	if err := readJSON(&resp.Body, &res); err != nil || len(res.Choices) == 0 {
		return nil, fmt.Errorf("forkRunningTurn: the root's answer (%v): want a whole Chat Completions answer", err)
	}
	answer, err := json.Marshal(res.Choices[0].Message.ToParam())
	w.mu.Lock()
	w.answer = answer
	w.mu.Unlock()
	return resp, err
}

// readJSON decodes the body *rc and puts back a copy to read again.
func readJSON(rc *io.ReadCloser, v any) error {
	b, err := io.ReadAll(*rc)
	(*rc).Close()
	*rc = io.NopCloser(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
