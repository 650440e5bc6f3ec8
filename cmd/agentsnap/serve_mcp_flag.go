package main

// The --mcp NAME=URL flag, the live MCP servers a recording forwards to,
// and the --mcp flags a re-recording needs.

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/session"
)

// maxMCPServers bounds --mcp.
const maxMCPServers = 32

// mcpName reports whether name is what an MCP server may be named: a
// letter or digit, then up to 63 letters, digits, '.', '_' or '-'. It is a
// path segment and is recorded in every mcp/call event. (Checked by hand:
// a regexp compiled at init cost every command 0.25 ms at its start.)
func mcpName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// mcpFlag is --mcp NAME=URL: the live MCP servers (Streamable HTTP) a
// recording forwards the agent's MCP requests to, by name.
type mcpFlag map[string]string

func (m *mcpFlag) String() string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(*m)) {
		out = append(out, name+"="+(*m)[name])
	}
	return strings.Join(out, ",")
}

func (m *mcpFlag) Set(s string) error {
	name, raw, ok := strings.Cut(s, "=")
	if !ok || !mcpName(name) {
		return fmt.Errorf("%q: want NAME=URL, a NAME of letters, digits, '.', '_' or '-' (up to 64), such as clock=http://127.0.0.1:8081/mcp", s)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q: the URL %q is no http(s) URL of an MCP server's Streamable HTTP endpoint, such as http://127.0.0.1:8081/mcp", s, raw)
	}
	if *m == nil {
		*m = mcpFlag{}
	}
	if _, dup := (*m)[name]; dup {
		return fmt.Errorf("%q: the server %s is named twice; give each server one --mcp", s, name)
	}
	if len(*m) == maxMCPServers {
		return fmt.Errorf("%q: more than %d MCP servers; give at most %d --mcp flags", s, maxMCPServers, maxMCPServers)
	}
	(*m)[name] = raw
	return nil
}

// secrets returns the credentials the servers' URLs carry (a token= in
// the query, user info), secrets of the recording as the base URL's are:
// a server may echo its own URL, and an error names it.
func (m mcpFlag) secrets() map[string]string {
	s := secret.New()
	for _, name := range slices.Sorted(maps.Keys(m)) {
		s.AddURL("--mcp "+name, m[name])
	}
	return s.Values()
}

// mcpFlagsOf is the --mcp flags a re-recording of fx needs: one for each
// MCP server its logs asked, " --mcp NAME=URL" each, in name order. The
// logs of a fixture Open made are read again (a replay's verdict asks
// this only when it failed).
func mcpFlagsOf(fx *fixture.Fixture) string {
	var mu sync.Mutex
	var names []string
	scan := func(_ int, l *session.Log) {
		for i := range l.Events {
			if l.Events[i].Type != session.TypeMCPCall {
				continue
			}
			var d session.MCPCallData
			if l.Events[i].Decode(&d) != nil || d.Server == "" {
				continue
			}
			mu.Lock()
			if !slices.Contains(names, d.Server) {
				names = append(names, d.Server)
			}
			mu.Unlock()
		}
	}
	if fx.Logs != nil {
		for i, l := range fx.Logs {
			scan(i, l)
		}
	} else {
		_ = fx.EachLog(scan) // a log it cannot read names no server: the replay said why
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(" --mcp " + n + "=URL")
	}
	return b.String()
}

// serverNames names the servers of --mcp, or says there are none.
func serverNames(servers map[string]string) string {
	if len(servers) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(servers)), ", ")
}
