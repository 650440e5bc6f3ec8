// Package apis lists the model APIs a live recording can call, by the name
// --api takes and request/header records: one table for the CLI's record
// and serve and for a test's -record, so every one of them speaks every
// API with the same names, keys and defaults.
package apis

import (
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/llm/responses"
)

// API is one model API a recording can call live.
type API struct {
	// Name is the API's name: --api's value, request/header's api, the
	// provider a live recording writes in scenario.json.
	Name string
	// Aliases are shorter names --api also takes ("chat").
	Aliases []string
	// Title names the API in messages and help ("OpenAI Chat Completions").
	Title string
	// KeyVars are the environment variables the key is read from, in
	// order.
	KeyVars []string
	// BaseURL is the provider's own endpoint, the example a message gives.
	BaseURL string
	// open makes a driver the way the API's package does (defaults, headers
	// a keyless endpoint still wants).
	open func(live.Config) (*live.Driver, error)
}

// Default is the API a live recording calls when none is named: the one
// agentsnap's reference runtime and the OpenAI-compatible servers speak.
const Default = openai.API

// legacy is the provider name live recordings wrote before the API was
// recorded: they called Chat Completions.
const legacy = "openai-compatible"

var all = []API{
	{Name: openai.API, Aliases: []string{"chat", "openai"}, Title: "OpenAI Chat Completions",
		KeyVars: []string{"AGENTSNAP_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY"}, BaseURL: "https://api.openai.com/v1",
		open: func(c live.Config) (*live.Driver, error) {
			return openai.New(openai.Config{BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model, Header: c.Header, HTTPClient: c.HTTPClient,
				Logger: c.Logger, MaxRetries: c.MaxRetries, BackoffBase: c.BackoffBase, MaxBackoff: c.MaxBackoff, Sleep: c.Sleep})
		}},
	{Name: responses.API, Aliases: []string{"responses"}, Title: "OpenAI Responses",
		KeyVars: []string{"AGENTSNAP_API_KEY", "OPENAI_API_KEY"}, BaseURL: "https://api.openai.com/v1",
		open: responses.New},
	{Name: anthropic.API, Aliases: []string{"anthropic", "claude"}, Title: "Anthropic Messages",
		KeyVars: []string{"AGENTSNAP_API_KEY", "ANTHROPIC_API_KEY"}, BaseURL: "https://api.anthropic.com",
		open: func(c live.Config) (*live.Driver, error) {
			return anthropic.New(anthropic.Config{BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model, Header: c.Header, HTTPClient: c.HTTPClient,
				Logger: c.Logger, MaxRetries: c.MaxRetries, BackoffBase: c.BackoffBase, MaxBackoff: c.MaxBackoff, Sleep: c.Sleep})
		}},
	{Name: gemini.API, Aliases: []string{"google"}, Title: "Gemini",
		KeyVars: []string{"AGENTSNAP_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"}, BaseURL: "https://generativelanguage.googleapis.com",
		open: gemini.New},
}

// All returns every API, the default first.
func All() []API { return append([]API(nil), all...) }

// Lookup returns the API named name (its name or an alias, any case; ""
// is the default). The error lists the names it takes.
func Lookup(name string) (API, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" || n == legacy {
		n = Default
	}
	for _, a := range all {
		if a.Name == n || containsFold(a.Aliases, n) {
			return a, nil
		}
	}
	return API{}, fmt.Errorf("apis: unknown model API %q; want one of %s", name, Names())
}

// Names lists the names Lookup takes, for messages and help:
// "openai-chat (chat), openai-responses (responses), ...".
func Names() string {
	var parts []string
	for _, a := range all {
		p := a.Name
		if len(a.Aliases) > 0 {
			p += " (" + strings.Join(a.Aliases, ", ") + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// KeyFromEnv returns the first non-empty key among a's KeyVars, read
// through getenv, and the variable it came from; both empty when none is
// set.
func (a API) KeyFromEnv(getenv func(string) string) (key, varName string) {
	return live.KeyFromEnv(getenv, a.KeyVars...)
}

// MissingKey is the error of a live recording of a without a key.
func (a API) MissingKey() error {
	return fmt.Errorf("a live recording of %s needs an API key: set %s", a.Title, strings.Join(a.KeyVars, ", or "))
}

// New returns a live driver of a for cfg.
func (a API) New(cfg live.Config) (*live.Driver, error) { return a.open(cfg) }

// Routed is the provider a recording writes when each call went to the API
// the agent spoke (request/header's api says which).
const Routed = "live"

// Provider is the provider a live recording of a writes in its
// request/header events and scenario.json: "openai-compatible" for Chat
// Completions (any server that speaks it), else the API's name.
func Provider(a API) string {
	if a.Name == Default {
		return legacy
	}
	return a.Name
}
