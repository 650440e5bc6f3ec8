package scenario

import (
	"slices"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// duplicateMembers reports every member that a scenario.json text b
// repeats — at the top level, and at any level inside the members Parse
// decodes (inside an unknown member, kept verbatim, nothing is read). A
// repeated member is ambiguous: encoding/json takes the last, while a
// rewrite of the text (WithRecorded) changes the first, so a merge leftover
// would silently disagree with itself. b must be valid JSON.
func duplicateMembers(b []byte) []string { return jsonscan.Repeated(b, decoded) }

// decoded reports whether Parse decodes the top-level member key.
func decoded(key []byte) bool {
	return slices.ContainsFunc(memberNames, func(n string) bool { return n == string(key) })
}
