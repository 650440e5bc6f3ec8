package wire_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/wire"
	"google.golang.org/genai"
)

// geminiModel is the model the genai agent asks for.
const geminiModel = "gemini-agent-model"

// genaiAgent is a small agent on Google's official Go SDK
// (google.golang.org/genai), written the way a team writes one: a loop
// that streams (or asks for whole answers), runs its tools, and delegates
// to children — the children of one answer at once, each on a context made
// with wire.Spawn or wire.Fork. It keeps its history as the SDK hands it
// the answer: one content per streamed event, the parts as they came.
type genaiAgent struct {
	client *genai.Client
	system string
	// Whole asks for whole answers (GenerateContent).
	Whole bool
	// Chat keeps the conversation in the SDK's own Chats, streamed.
	Chat bool
	// OpenAPI declares the tools with an OpenAPI schema (parameters)
	// rather than a JSON Schema (parametersJsonSchema).
	OpenAPI bool
	// Temperature, when set, is sent with every call.
	Temperature float32
	// ThinkingBudget, when set, is sent with every call.
	ThinkingBudget int32
	// Counts, when set, has the agent count each call's tokens first
	// (client.Models.CountTokens; without Chat) and keeps the answers.
	Counts *tokenCounts
	// Respond, when set, makes the function response for a call and its
	// tool's result (else {"output": result}, with the call's id).
	Respond func(c *genai.FunctionCall, result string) *genai.FunctionResponse
	// ByName drops the ids of the answer's function calls, as Eino's
	// Gemini model does, and names each child by its call's function name.
	ByName bool
}

// newGenaiAgent returns the agent configured by settings, scenario.json's
// agent member ({"system": "..."}), on a client that sends its calls with
// hc to base, with key as its API key ("unused" when empty). The client
// never retries: a replay serves each recorded call once.
func newGenaiAgent(ctx context.Context, settings json.RawMessage, hc *http.Client, base, key string) (*genaiAgent, error) {
	var cfg struct{ System string }
	_ = json.Unmarshal(settings, &cfg) // a missing prompt shows as drift
	if key == "" {
		key = "unused"
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      key,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: base},
	})
	if err != nil {
		return nil, err
	}
	return &genaiAgent{client: client, system: cfg.System}, nil
}

// genaiRuntime is the genai agent as the runtime under test, in process,
// with a change to the agent; its base URL is the wire layer's origin.
func genaiRuntime(change func(*genaiAgent)) agentsnap.Runtime {
	return genaiRuntimeAt(func(env *wire.Env) string { return strings.TrimSuffix(env.BaseURL, "/v1") }, change)
}

// genaiRuntimeAt is genaiRuntime with the base URL base gives.
func genaiRuntimeAt(base func(*wire.Env) string, change func(*genaiAgent)) agentsnap.Runtime {
	return wire.Runtime("genai-test-agent", func(ctx context.Context, env *wire.Env) error {
		a, err := newGenaiAgent(ctx, env.Scenario.Agent, env.HTTPClient, base(env), "")
		if err != nil {
			return err
		}
		change(a)
		root, err := a.root(ctx)
		if err != nil {
			return err
		}
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := root.Send(ctx, prompt)
			return err
		})
	})
}

func (a *genaiAgent) config() *genai.GenerateContentConfig {
	cfg := &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText(a.system, genai.RoleUser), Tools: a.tools()}
	if a.Temperature != 0 {
		cfg.Temperature = genai.Ptr(a.Temperature)
	}
	if a.ThinkingBudget != 0 {
		cfg.ThinkingConfig = &genai.ThinkingConfig{ThinkingBudget: genai.Ptr(a.ThinkingBudget)}
	}
	return cfg
}

func (a *genaiAgent) tools() []*genai.Tool {
	fn := func(name, desc, field string) *genai.FunctionDeclaration {
		d := &genai.FunctionDeclaration{Name: name, Description: desc}
		if a.OpenAPI {
			d.Parameters = &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{field: {Type: genai.TypeString}}, Required: []string{field}}
		} else {
			d.ParametersJsonSchema = map[string]any{"type": "object", "properties": map[string]any{field: map[string]string{"type": "string"}}, "required": []string{field}}
		}
		return d
	}
	return []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{
		fn("lookup", "Look up a fact by key.", "key"),
		fn("subagent_spawn", "Delegate to a fresh subagent.", "prompt"),
		fn("subagent_fork", "Delegate to a subagent that knows this conversation.", "prompt"),
	}}}
}

// genaiSession is one conversation: the root's or a child's.
type genaiSession struct {
	agent     *genaiAgent
	history   []*genai.Content // without Chat
	chat      *genai.Chat      // with Chat
	completed int              // contents of its completed turns: what a fork inherits
}

func (a *genaiAgent) root(ctx context.Context) (*genaiSession, error) {
	return a.session(ctx, nil)
}

func (a *genaiAgent) session(ctx context.Context, history []*genai.Content) (*genaiSession, error) {
	s := &genaiSession{agent: a, history: history, completed: len(history)}
	if a.Chat {
		chat, err := a.client.Chats.Create(ctx, geminiModel, a.config(), history)
		if err != nil {
			return nil, err
		}
		s.chat, s.history = chat, nil
	}
	return s, nil
}

// Send runs one user turn: call the model, run the tools (children at
// once), send the results back in call order, until an answer without
// function calls, whose text it returns.
func (s *genaiSession) Send(ctx context.Context, prompt string) (string, error) {
	parts := []*genai.Part{genai.NewPartFromText(prompt)}
	for {
		answer, err := s.generate(ctx, parts)
		if err != nil {
			return "", err
		}
		var calls []*genai.FunctionCall
		var text strings.Builder
		for _, c := range answer {
			for _, p := range c.Parts {
				switch {
				case p.FunctionCall != nil:
					calls = append(calls, p.FunctionCall)
				case !p.Thought:
					text.WriteString(p.Text)
				}
			}
		}
		if len(calls) == 0 {
			s.completed = len(s.contents())
			return text.String(), nil
		}
		results := s.runTools(ctx, calls)
		parts = make([]*genai.Part, len(calls))
		for i, c := range calls {
			fr := &genai.FunctionResponse{ID: c.ID, Name: c.Name, Response: map[string]any{"output": results[i]}}
			if s.agent.Respond != nil {
				fr = s.agent.Respond(c, results[i])
			}
			parts[i] = &genai.Part{FunctionResponse: fr}
		}
	}
}

// contents is the session's conversation so far.
func (s *genaiSession) contents() []*genai.Content {
	if s.chat != nil {
		return s.chat.History(true)
	}
	return s.history
}

// generate sends parts as the next user content and returns the answer,
// one content per event of a stream.
func (s *genaiSession) generate(ctx context.Context, parts []*genai.Part) ([]*genai.Content, error) {
	a := s.agent
	var answer []*genai.Content
	keep := func(r *genai.GenerateContentResponse) {
		if len(r.Candidates) > 0 && r.Candidates[0].Content != nil {
			answer = append(answer, r.Candidates[0].Content)
		}
	}
	if s.chat != nil {
		for r, err := range s.chat.SendStream(ctx, parts...) {
			if err != nil {
				return nil, err
			}
			keep(r)
		}
		return answer, nil
	}
	s.history = append(s.history, &genai.Content{Role: genai.RoleUser, Parts: parts})
	if a.Counts != nil {
		if err := a.Counts.countGemini(ctx, a.client, s.history); err != nil {
			return nil, err
		}
	}
	if a.Whole {
		r, err := a.client.Models.GenerateContent(ctx, geminiModel, s.history, a.config())
		if err != nil {
			return nil, err
		}
		keep(r)
	} else {
		for r, err := range a.client.Models.GenerateContentStream(ctx, geminiModel, s.history, a.config()) {
			if err != nil {
				return nil, err
			}
			keep(r)
		}
	}
	if a.ByName {
		for _, c := range answer {
			for _, p := range c.Parts {
				if p.FunctionCall != nil {
					p.FunctionCall.ID = ""
				}
			}
		}
	}
	s.history = append(s.history, answer...)
	return answer, nil
}

// runTools runs the calls of one answer, the children at once, and
// returns their results in call order.
func (s *genaiSession) runTools(ctx context.Context, calls []*genai.FunctionCall) []string {
	results := make([]string, len(calls))
	var wg sync.WaitGroup
	for i, fc := range calls {
		arg := func(k string) string { v, _ := fc.Args[k].(string); return v }
		switch fc.Name {
		case "lookup":
			results[i] = geminiFacts[arg("key")]
		case "subagent_spawn", "subagent_fork":
			// Set up before any child runs: the parent's conversation does
			// not change until every child is done.
			fork := fc.Name == "subagent_fork"
			var inherit []*genai.Content
			ref := fc.ID
			if ref == "" {
				ref = fc.Name // ByName
			}
			cctx := wire.Spawn(ctx, ref)
			if fork {
				inherit = slices.Clone(s.contents()[:s.completed])
				cctx = wire.Fork(ctx, ref)
			}
			child, err := s.agent.session(ctx, inherit)
			if err != nil {
				results[i] = fmt.Sprintf("the subagent failed: %v", err)
				continue
			}
			wg.Go(func() {
				text, err := child.Send(cctx, arg("prompt"))
				if err != nil {
					text = fmt.Sprintf("the subagent failed: %v", err)
				}
				results[i] = text
			})
		default:
			results[i] = "unknown tool " + fc.Name
		}
	}
	wg.Wait()
	return results
}

// geminiFacts is the lookup tool's table.
var geminiFacts = map[string]string{"release": "v2.4.1", "owner": "team-atlas"}
