package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
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

// tools reads the request's tools: its function declarations, and every
// other tool (googleSearch, …) as it was sent, for the settings.
func tools(raw json.RawMessage) ([]llm.ToolSpec, []json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil, nil
	}
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, nil, fmt.Errorf("tools: want an array of tool objects: %w", err)
	}
	var specs []llm.ToolSpec
	var extra []json.RawMessage
	for i, e := range entries {
		if fd, ok := e["functionDeclarations"]; ok {
			var decls []FunctionDeclaration
			if err := json.Unmarshal(fd, &decls); err != nil {
				return nil, nil, fmt.Errorf("tools[%d].functionDeclarations: %w", i, err)
			}
			for k, d := range decls {
				spec, err := toolSpec(d)
				if err != nil {
					return nil, nil, fmt.Errorf("tools[%d].functionDeclarations[%d] (%s): %w", i, k, d.Name, err)
				}
				specs = append(specs, spec)
			}
			delete(e, "functionDeclarations")
		}
		if len(e) > 0 {
			b, _ := json.Marshal(e)
			extra = append(extra, b)
		}
	}
	return specs, extra, nil
}

// toolSpec is a function declaration as agentsnap digests it: its
// parameters as a JSON Schema in canonical form, an OpenAPI schema
// (parameters) converted to one.
func toolSpec(d FunctionDeclaration) (llm.ToolSpec, error) {
	spec := llm.ToolSpec{Name: d.Name, Description: d.Description}
	js, oa := present(d.ParametersJSONSchema), present(d.Parameters)
	switch {
	case js && oa:
		return spec, errors.New("both parameters and parametersJsonSchema; a declaration sends one of them")
	case js:
		s, err := canonicalJSON(d.ParametersJSONSchema)
		if err != nil {
			return spec, fmt.Errorf("parametersJsonSchema: %w", err)
		}
		spec.Parameters = json.RawMessage(s)
	case oa:
		dec := json.NewDecoder(bytes.NewReader(d.Parameters))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return spec, fmt.Errorf("parameters: %w", err)
		}
		s, err := session.MarshalData(jsonSchema(v))
		if err != nil {
			return spec, err
		}
		spec.Parameters = s
	}
	return spec, nil
}

func present(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && string(t) != "null"
}

// jsonSchema converts an OpenAPI schema (the Gemini Schema: type names in
// upper case, nullable) to a JSON Schema: type names in lower case, a
// nullable type a list with "null", through properties, items and anyOf.
// The rest is kept as it is.
func jsonSchema(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, val := range m {
		switch k {
		case "type":
			if s, ok := val.(string); ok {
				if s != "TYPE_UNSPECIFIED" {
					out[k] = strings.ToLower(s)
				}
				continue
			}
			out[k] = val
		case "nullable":
		case "properties":
			if props, ok := val.(map[string]any); ok {
				conv := make(map[string]any, len(props))
				for name, p := range props {
					conv[name] = jsonSchema(p)
				}
				out[k] = conv
				continue
			}
			out[k] = val
		case "items":
			out[k] = jsonSchema(val)
		case "anyOf":
			if list, ok := val.([]any); ok {
				conv := make([]any, len(list))
				for i, s := range list {
					conv[i] = jsonSchema(s)
				}
				out[k] = conv
				continue
			}
			out[k] = val
		default:
			out[k] = val
		}
	}
	if n, _ := m["nullable"].(bool); n {
		if t, ok := out["type"].(string); ok {
			out["type"] = []any{t, "null"}
		}
	}
	return out
}
