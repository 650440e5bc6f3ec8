package fakellm

// ObjectMembers is objectMembers, for the tests.
var ObjectMembers = objectMembers

// TurnEnds is how s's own turns ended, as derivation kept them.
func TurnEnds(s *Script) map[int]string { return s.turnEnds }

// LogTurnEnds is how l's own turns ended, read from the log.
var LogTurnEnds = turnEnds

// EntryChunks is entryChunks, for the tests.
var EntryChunks = entryChunks
