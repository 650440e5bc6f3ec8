package wire

import (
	"iter"
	"net/http"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Format is one wire format of a model API: how a request reads and how an
// answer is written. OpenAI's Chat Completions is the one agentsnap ships
// (ChatCompletions); a second one, such as Anthropic's Messages, is one
// more implementation in a file of its own — the handler, the sessions,
// the logs and the replay do not change.
type Format interface {
	// Name names the format in messages ("openai chat completions").
	Name() string
	// Match reports whether r is a model call in this format.
	Match(r *http.Request) bool
	// DecodeRequest reads a request body.
	DecodeRequest(body []byte) (*Request, error)
	// WriteStream writes a streamed answer: the chunks of one model call,
	// which end with exactly one finish. It writes the status and headers.
	WriteStream(w http.ResponseWriter, req *Request, chunks iter.Seq[llm.Chunk]) error
	// WriteMessage writes a whole answer (a request that did not ask for a
	// stream): the assembled message, its usage and how it finished.
	WriteMessage(w http.ResponseWriter, req *Request, msg session.Message, usage *session.Usage, finish *session.FinishReason) error
	// WriteError writes a failure that is not the model's: a request the
	// handler cannot serve (an unknown session, a broken body).
	WriteError(w http.ResponseWriter, status int, code, message string)
}

// Request is a model call as it came over the wire, in agentsnap's terms.
type Request struct {
	Model  string
	System string
	// Messages is the conversation as sent, system prompt excluded: user
	// messages, assistant messages (with their tool calls) and tool
	// results, one message per tool result.
	Messages []session.Message
	Tools    []llm.ToolSpec
	Stream   bool
}
