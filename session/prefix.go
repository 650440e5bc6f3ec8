package session

// CompletedPrefix returns the length of the balanced completed-turn prefix
// of events: every event up to and including the last turn/end. A fork child
// inherits exactly this prefix, so every tool call in it has its result and
// no turn is half done. With no completed turn it returns 0 (a fork on the
// parent's first turn inherits nothing).
func CompletedPrefix(events []Event) int {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == TypeTurnEnd {
			return i + 1
		}
	}
	return 0
}
