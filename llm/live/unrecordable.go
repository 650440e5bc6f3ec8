package live

import (
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// unrecordableNote joins, in an UnrecordableFinish's message, what the
// model called to what to do instead; Unrecordable finds a finish by it.
const unrecordableNote = "; agentsnap records function calls only: "

// UnrecordableFinish returns the BAD_STREAM finish of a call in which the
// model called something a session log cannot record: a tool other than a
// function tool, which the client would have to run. what says where and
// what the model called, todo how the agent gets a recordable call
// instead. The message, scrubbed, is bounded whole to maxMessage bytes,
// the mark of a cut included (Clip's cut adds its mark after the bound):
// the note and todo keep up to half of it, so they are cut off only when
// todo alone is that long, and what is cut to the rest.
func UnrecordableFinish(sc Scrubber, what, todo string) session.Chunk {
	tail := clipTo(sc.scrub(unrecordableNote+todo), maxMessage/2)
	return session.ErrorFinish(CodeBadStream, clipTo(sc.scrub(what), maxMessage-len(tail))+tail)
}

// clipTo cuts s to at most n bytes, the mark of the cut included.
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return truncate(s, n-len(cutMark))
}

// Unrecordable reports whether f is the failure of an UnrecordableFinish:
// one no retry, key or network fixes, only a change of the agent's tools.
// It reads the message (the failure has no field of its own for it), so a
// message that quotes a server's text holding the note could pass for
// one; a caller uses it for what to advise, never to decide.
func Unrecordable(f *session.Failure) bool {
	return f != nil && f.Code == CodeBadStream && strings.Contains(f.Message, unrecordableNote)
}
