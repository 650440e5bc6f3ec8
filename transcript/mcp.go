package transcript

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// mcpSummary shows an MCP request and its answer in one line: a tool
// call's name, arguments and text, a resource's uri and text, the tools a
// listing names; any other method with its params and result, cut short.
func mcpSummary(d *session.MCPCallData) string {
	if d.Error != nil {
		return fmt.Sprintf("%s %s: error %d: %s", d.Method, cut(withoutMeta(d.Params)), d.Error.Code, d.Error.Message)
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		URI       string          `json:"uri"`
	}
	var r struct {
		Content  []mcpContent `json:"content"`
		Contents []mcpContent `json:"contents"`
		IsError  bool         `json:"isError"`
		Tools    []struct {
			Name string `json:"name"`
		} `json:"tools"`
		ServerInfo *serverInfo `json:"serverInfo"`
		Meta       struct {
			ServerInfo *serverInfo `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(d.Params, &p)
	_ = json.Unmarshal(d.Result, &r)
	switch d.Method {
	case "tools/call":
		label := ": "
		if r.IsError {
			label = " (error): "
		}
		return fmt.Sprintf("tools/call %s %s%s%s", p.Name, cut(withoutMeta(p.Arguments)), label, texts(r.Content))
	case "resources/read":
		return fmt.Sprintf("resources/read %s: %s", p.URI, texts(r.Contents))
	case "tools/list":
		names := make([]string, len(r.Tools))
		for i, t := range r.Tools {
			names[i] = t.Name
		}
		return fmt.Sprintf("tools/list: %s", strings.Join(names, ", "))
	case "initialize", "server/discover":
		if info := cmp.Or(r.ServerInfo, r.Meta.ServerInfo); info != nil {
			return fmt.Sprintf("%s: %s %s", d.Method, info.Name, info.Version)
		}
	}
	return fmt.Sprintf("%s %s: %s", d.Method, cut(withoutMeta(d.Params)), cut(withoutMeta(d.Result)))
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// withoutMeta shows a JSON value in canonical form without its _meta
// member, which says who asks and how, not what.
func withoutMeta(v json.RawMessage) string {
	return string(session.CanonicalJSON(session.WithoutMeta(v)))
}

// mcpContent is an item of an MCP result's content: text, or another kind
// shown by its type.
type mcpContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func texts(items []mcpContent) string {
	var out []string
	for _, c := range items {
		if c.Text != "" || c.Type == "text" || c.Type == "" {
			out = append(out, c.Text)
		} else {
			out = append(out, "["+c.Type+"]")
		}
	}
	return strings.Join(out, " ")
}

func cut(s string) string {
	const n = 120
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
