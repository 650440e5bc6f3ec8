package main

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/internal/wirebench"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// goAgentModel is the model name goAgent sends with every call.
const goAgentModel = "go-agent-model"

// remoteAgent is examples/sdkagent's openai-go agent run as an agent in
// "another process" is: on serve's base URL, naming each call's session
// in the Agentsnap-* headers only (no in-process tags).
type remoteAgent struct{ *sdkagent.Agent }

// Run runs prompts as the root session's turns, one after another.
func (a remoteAgent) Run(ctx context.Context, prompts []string) error {
	root := a.NewSession()
	for _, p := range prompts {
		if _, err := root.Send(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// goAgent is the agent configured by the scenario in dir (its agent
// member, {"system": "..."}, and maxDepth, 2 by default: children offer
// the root's tools) on a client made with opts too, and the scenario's
// prompts.
func goAgent(baseURL, dir string, opts ...option.RequestOption) (remoteAgent, []string) {
	sc, err := scenario.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	var cfg struct{ System string }
	_ = json.Unmarshal(sc.Agent, &cfg) // a missing prompt shows as drift
	opts = append([]option.RequestOption{
		option.WithBaseURL(baseURL),
		option.WithAPIKey("unused"),
		option.WithMaxRetries(0), // a replay serves each recorded call once
		option.WithMiddleware(sessionHeaders),
	}, opts...)
	return remoteAgent{&sdkagent.Agent{
		Client:       openai.NewClient(opts...),
		Model:        goAgentModel,
		System:       cfg.System,
		MaxDepth:     cmp.Or(sc.MaxDepth, 2),
		Tools:        []sdkagent.Tool{lookup},
		ChildContext: childSession,
	}}, sc.Prompts
}

// runGoAgent runs the prompts of the scenario in dir as the root's turns.
func runGoAgent(ctx context.Context, baseURL, dir string) error {
	a, prompts := goAgent(baseURL, dir)
	return a.Run(ctx, prompts)
}

// headerSession is a session as the Agentsnap-* headers name it: the
// root is "root", a child PARENT/CALL.
type headerSession struct{ id, parent, call, mode string }

type headerSessionKey struct{}

// childSession carries a child's session in the context of its calls, as
// the agent's ChildContext hook: the context is all an HTTP call knows of
// who makes it.
func childSession(ctx context.Context, callID string, fork bool) context.Context {
	parent := sessionOf(ctx).id
	mode := "spawn"
	if fork {
		mode = "fork"
	}
	return context.WithValue(ctx, headerSessionKey{}, headerSession{id: parent + "/" + callID, parent: parent, call: callID, mode: mode})
}

func sessionOf(ctx context.Context) headerSession {
	if s, ok := ctx.Value(headerSessionKey{}).(headerSession); ok {
		return s
	}
	return headerSession{id: "root"}
}

// sessionHeaders is client middleware that names the session of each call,
// from the call's context, in the headers serve reads.
func sessionHeaders(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	s := sessionOf(r.Context())
	r.Header.Set(wire.HeaderSession, s.id)
	if s.parent != "" {
		r.Header.Set(wire.HeaderParent, s.parent)
		r.Header.Set(wire.HeaderCall, s.call)
		r.Header.Set(wire.HeaderMode, s.mode)
	}
	return next(r)
}

// lookup is a tool of the test's own beside the agent's (wirebench.Lookup:
// a fact by key from wirebench.Facts), which the playbooks call.
var lookup = wirebench.Lookup
