package loop

import (
	"errors"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

var errAgentSlow = errors.New("agent: left to encoding/json")

// decodeAgentFast decodes an agent member whose members are all settings
// of the reference runtime, named exactly, with a string or strings for
// value — what a scenario.json almost always holds — and reports whether
// it did, with what encoding/json gives for it (and no warning, there
// being no unknown member). Anything else — another member, an escaped
// name, null, another type, a text that is no object — is left to
// encoding/json, whose errors and warnings ParseScenarioAgent reports.
func decodeAgentFast(raw []byte, dst *ScenarioAgent) bool {
	var a ScenarioAgent
	err := jsonscan.Object(raw, func(key []byte, esc bool, val []byte) error {
		var err error
		switch {
		case esc:
			return errAgentSlow
		case string(key) == "preset":
			a.Preset, err = jsonscan.String(val)
		case string(key) == "system":
			a.System, err = jsonscan.String(val)
		case string(key) == "tools":
			a.Tools, err = jsonscan.Strings(val)
		default:
			return errAgentSlow
		}
		return err
	})
	if err != nil {
		return false
	}
	*dst = a
	return true
}
