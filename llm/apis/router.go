package apis

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"net"
	"net/url"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
)

// Router is the live model of a recording: it calls each request in the
// API the request came in (llm.Request.API, what the wire layer decoded;
// the default for a request that names none), or in one fixed API. An
// agent on the Gemini SDK is recorded against Gemini, one on the
// Anthropic SDK against Anthropic, with the same flags. It is safe for
// concurrent use.
type Router struct {
	fixed   *API
	drivers map[string]*live.Driver // by API name
	keys    map[string]string       // by API name: the variable its key came from, or ""
	creds   map[string]string
}

var (
	_ llm.Driver       = (*Router)(nil)
	_ llm.TokenCounter = (*Router)(nil)
)

// NewRouter returns the live model for cfg (its APIKey ignored: each API's
// key is read through getenv from its KeyVars). api names one API to call
// every request in ("" routes each by its own). A fixed API without a key
// is an error naming the variables; a routed API without one fails the
// first call in it, the same way. When a key would go over plain http to
// another machine, it warns through cfg.Logger, once.
func NewRouter(api string, cfg live.Config, getenv func(string) string) (*Router, error) {
	r := &Router{drivers: map[string]*live.Driver{}, keys: map[string]string{}, creds: map[string]string{}}
	todo := all
	if api != "" {
		a, err := Lookup(api)
		if err != nil {
			return nil, err
		}
		if key, _ := a.KeyFromEnv(getenv); key == "" {
			return nil, a.MissingKey()
		}
		r.fixed, todo = &a, []API{a}
	}
	for _, a := range todo {
		c := cfg
		c.APIKey, r.keys[a.Name] = a.KeyFromEnv(getenv)
		d, err := a.New(c)
		if err != nil {
			return nil, err
		}
		r.drivers[a.Name] = d
		maps.Copy(r.creds, d.Credentials())
	}
	if u, err := url.Parse(cfg.BaseURL); err == nil && len(r.creds) > 0 && cleartext(u) && cfg.Logger != nil {
		cfg.Logger.Warn("the key goes to " + u.Host + " over plain http, unencrypted: anyone on the network between can read it; use https (http is fine for a server on this machine, such as http://localhost)")
	}
	return r, nil
}

// cleartext reports whether u sends what it is sent unencrypted over a
// network: plain http to a host other than this machine's loopback.
func cleartext(u *url.URL) bool {
	if u.Scheme != "http" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// Stream calls req in its API.
func (r *Router) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	a, err := r.api(req)
	if err != nil {
		return nil, err
	}
	if r.keys[a.Name] == "" {
		return nil, fmt.Errorf("%w (the agent calls %s)", a.MissingKey(), a.Title)
	}
	return r.drivers[a.Name].Stream(ctx, req)
}

// CountTokens implements llm.TokenCounter: req's tokens counted in the
// API it is called in, by that API's token counting endpoint.
func (r *Router) CountTokens(ctx context.Context, req *llm.Request) (int64, error) {
	a, err := r.api(req)
	if err != nil {
		return 0, err
	}
	if r.keys[a.Name] == "" {
		// llm.ErrCannotCount: nothing was sent, and asking again would
		// not help.
		return 0, fmt.Errorf("%w (the agent counts tokens in %s): %w", a.MissingKey(), a.Title, llm.ErrCannotCount)
	}
	return r.drivers[a.Name].CountTokens(ctx, req)
}

// api is the API req is called in.
func (r *Router) api(req *llm.Request) (API, error) {
	if r.fixed != nil {
		return *r.fixed, nil
	}
	if req == nil {
		return Lookup("")
	}
	return Lookup(req.API)
}

// Credentials returns what the router's drivers send as credentials, for
// the recording's secrets.
func (r *Router) Credentials() map[string]string { return maps.Clone(r.creds) }

// KeyVar returns the variable the key of the API named api came from ("" when
// none is set).
func (r *Router) KeyVar(api string) string {
	a, err := Lookup(api)
	if err != nil {
		return ""
	}
	return r.keys[a.Name]
}

// Fixed returns the API every call goes to, when one was named.
func (r *Router) Fixed() (API, bool) {
	if r.fixed == nil {
		return API{}, false
	}
	return *r.fixed, true
}
