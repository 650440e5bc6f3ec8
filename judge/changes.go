package judge

import "github.com/agentsnap/agentsnap/session"

// RequestChanges says in sentences what differs between a call's recorded
// request/header and the one sent now — the model, the API, the system
// prompt, the tools, the settings, the conversation — or nil when the
// agent sends the recorded request. The provider is compared as given. A
// header recorded before headers held the API and the settings is compared
// without them; one recorded before headers held each tool's digest says
// that a tool changed without naming it. A recorder uses it to tell a call that still matches its
// recording from one that drifted.
func RequestChanges(recorded, now session.RequestHeaderData) []string {
	if recorded.API == "" {
		now.API, now.Settings = "", recorded.Settings // recorded before they were (see olderRequest)
	}
	return requestChanges(&recorded, &now)
}
