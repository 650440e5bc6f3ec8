package termtext_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/internal/termtext"
)

func TestCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"äöüß", 2, "äö…"},
		{"", 0, ""},
		{"x", 0, "…"},
	} {
		if got := termtext.Cut(c.s, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
