package gemini

import (
	"encoding/json"
	"slices"
)

// declNames are the members of a function declaration that a reader
// knows: its name, its description and its parameters, an OpenAPI schema
// or a JSON Schema. A ToolSpec holds the first two and a JSON Schema:
// OpenAPI parameters are converted for it (toolSpec).
var declNames = []string{"name", "description", "parameters", "parametersJsonSchema"}

// declarationsSayMore reports whether a function declaration of the
// request's tools (raw, as sent, an array tools has read) says more than
// a ToolSpec holds: OpenAPI parameters (which the spec holds converted to
// a JSON Schema: a live model sent that schema would get other
// parameters than the agent's, and a proto client's enum numbers not at
// all), genai's behavior, response or responseJsonSchema, any other
// member. The tools are then the setting "tools", as sent: a live model
// gets them as the agent sent them, and a change is drift.
func declarationsSayMore(raw json.RawMessage) bool {
	var entries []map[string]json.RawMessage
	if json.Unmarshal(raw, &entries) != nil {
		return false
	}
	for _, e := range entries {
		var decls []map[string]json.RawMessage
		if json.Unmarshal(e["functionDeclarations"], &decls) != nil {
			continue
		}
		for _, d := range decls {
			for k, v := range d {
				if !slices.Contains(declNames, k) || k == "parameters" && present(v) {
					return true
				}
			}
		}
	}
	return false
}

// declaresFunctions reports whether the tools a request's settings hold
// (raw, each as sent) declare functions: they are then its tools as sent
// (declarationsSayMore), not those beside its declarations.
func declaresFunctions(tools []json.RawMessage) bool {
	for _, t := range tools {
		var e map[string]json.RawMessage
		if json.Unmarshal(t, &e) == nil {
			if _, ok := e["functionDeclarations"]; ok {
				return true
			}
		}
	}
	return false
}
