package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
)

// toolPath is serve's endpoint for an agent's recorded tools.
const toolPath = "/agentsnap/tool"

// toolEndpoint runs the agent's recorded tools through the wire handler
// (wire.Handler.Tool) for an agent in another process: the agent asks
// before it runs a tool; in a replay the answer is the recorded output,
// and the tool does not run; while recording the answer is "run" and the
// call's id (or, in an only-changed recording, the recorded output for a
// session that still replays), once the call is found among the session's last answer's:
// the agent runs the tool and sends its output with that id, which is
// recorded.
// The session is the one the request's Agentsnap-* headers name.
type toolEndpoint struct {
	h         *wire.Handler
	recording bool // no replay: the tools run
}

// toolRequest is a POST to toolPath: the tool call as the agent runs it —
// its name and arguments, its id when the agent has it — and, once run
// while recording, its output.
type toolRequest struct {
	ID        string              `json:"id,omitempty"`
	Name      string              `json:"name"`
	Arguments *string             `json:"arguments"`
	Output    *session.ToolOutput `json:"output,omitempty"`
}

// toolAnswer is the answer to a toolRequest: the output to hand the model,
// or Run, when the agent must run the tool and send its output with the
// call's ID.
type toolAnswer struct {
	Run    bool                `json:"run,omitempty"`
	ID     string              `json:"id,omitempty"` // with Run: the call's id, to send with its output
	Output *session.ToolOutput `json:"output,omitempty"`
}

func (e *toolEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		toolRefuse(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: the recorded tools' endpoint takes POST only", r.Method, r.URL.Path))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		toolRefuse(w, http.StatusBadRequest, "reading the request: "+err.Error())
		return
	}
	var req toolRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || dec.More() {
		if err == nil {
			err = fmt.Errorf("more after the object")
		}
		toolRefuse(w, http.StatusBadRequest, fmt.Sprintf(`POST %s: the body is no tool call (%v); send {"name": "...", "arguments": "...", "id": "..."} as the model made the call, and "output": {"text": "...", "isError": false} once run`, toolPath, err))
		return
	}
	if req.Name == "" || req.Arguments == nil {
		toolRefuse(w, http.StatusBadRequest, fmt.Sprintf(`POST %s: the tool call has no name or no arguments; send {"name": "...", "arguments": "..."}, the arguments the JSON text the model gave ("{}" for none)`, toolPath))
		return
	}
	// A credential the agent sends with the request (a header, a key= in
	// the query) is a secret of the recording: the fixture is scrubbed of
	// it wherever it shows, a tool's output included.
	secret.FromContext(r.Context()).AddRequest(r, "the agent's recorded tool")
	call := session.Part{Type: session.PartToolCall, ID: req.ID, Name: req.Name, Arguments: *req.Arguments}
	if e.recording && req.Output == nil {
		// The call is checked, and named, before the agent runs the tool;
		// a session of an only-changed recording that still replays gets
		// its recorded output instead.
		made, out, served, err := e.h.ToolReplayed(r.Context(), r.Header, call)
		switch {
		case served:
			answerJSON(w, http.StatusOK, toolAnswer{Output: &out})
		case err != nil:
			toolRefuse(w, http.StatusBadRequest, err.Error())
		default:
			answerJSON(w, http.StatusOK, toolAnswer{Run: true, ID: made.ID})
		}
		return
	}
	var out session.ToolOutput
	if e.recording {
		// The same output sent again (a retry) is answered as the first
		// was; another is refused.
		out, err = e.h.ToolOutput(r.Context(), r.Header, call, *req.Output)
	} else {
		out, err = e.h.Tool(r.Context(), r.Header, call, nil) // a replay runs nothing
	}
	if err != nil && (e.recording || out == session.ToolOutput{}) {
		// Not a call the session waits for, or another output for one
		// recorded: nothing more is recorded.
		toolRefuse(w, http.StatusBadRequest, err.Error())
		return
	}
	// In a replay a call the recording lacks gets the error as its output,
	// which the agent hands the model; the replay fails anyway.
	answerJSON(w, http.StatusOK, toolAnswer{Output: &out})
}

func toolRefuse(w http.ResponseWriter, status int, message string) {
	answerJSON(w, status, map[string]any{"error": map[string]string{"message": message}})
}

func answerJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
