// Package english words counts in the messages agentsnap prints: one
// session, two sessions.
package english

import "strconv"

// Plural returns word for one and word with an s for any other n. The
// nouns agentsnap counts all form their plural so.
func Plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Count returns n with its noun, singular for one: Count(1, "session") is
// "1 session", Count(3, "model call") is "3 model calls".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Plural(n, noun)
}
