// Package envvar reads the switches agentsnap takes from the environment.
package envvar

import (
	"os"
	"strings"
)

// Truthy reports whether v switches something on: anything but "", "0",
// "false", "no" and "off" (any case, around white space).
func Truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// On reports whether the variable name is set to a Truthy value.
func On(name string) bool { return Truthy(os.Getenv(name)) }
