package judge

// Recordings made before the request header held the API, the request
// settings, the tools as sent or each tool's digest: what they never
// recorded is no difference until the fixture is recorded again.

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/session"
)

// olderRequest returns replay as a recording made before request/header
// held the API and the request settings, or each tool's digest, would have
// written it, when golden is such a recording: what it never recorded is
// not a difference (it shows once the fixture is recorded again).
func olderRequest(golden *session.Event, replay session.Event) session.Event {
	if golden.Type != session.TypeRequestHeader || replay.Type != session.TypeRequestHeader {
		return replay
	}
	noToolDigests := !bytes.Contains(golden.Data, toolDigestsKey) && bytes.Contains(replay.Data, toolDigestsKey)
	if noToolDigests {
		// Cut without decoding: every header of a fixture recorded before
		// comes here.
		if b := withoutToolDigests(replay.Data); b != nil {
			replay.Data, noToolDigests = b, false
		}
	}
	noAPI := !bytes.Contains(golden.Data, []byte(`"api":`)) && bytes.Contains(replay.Data, []byte(`"api":`))
	noToolsSetting := !bytes.Contains(golden.Data, toolsSettingKey) && bytes.Contains(replay.Data, toolsSettingKey)
	if !noAPI && !noToolDigests && !noToolsSetting {
		return replay
	}
	var d session.RequestHeaderData
	if replay.Decode(&d) != nil {
		return replay
	}
	if noAPI {
		d.API, d.Settings = "", nil
	}
	if noToolsSetting {
		var g session.RequestHeaderData
		if golden.Decode(&g) == nil {
			d.Settings = olderToolsSetting(g.Settings, d.Settings)
		}
	}
	if noToolDigests {
		d.ToolDigests = nil
	}
	if b, err := session.MarshalData(d); err == nil {
		replay.Data = b
	}
	return replay
}

var toolDigestsKey = []byte(`"toolDigests":`)

// toolsSettingKey is how a request header's settings hold the tools as
// sent (no other member of a header is named "tools").
var toolsSettingKey = []byte(`"tools":`)

// olderToolsSetting returns r, a replayed call's settings, without the
// tools as sent when g, its recording's, holds none: the readers record
// tools that say more than a name, a description and a schema (strict,
// eager_input_streaming, …) as the setting "tools" since 2026-12-07, and
// dropped those members before, so a fixture recorded before would fail
// every replay of an agent that sends them. Such a recording is taken for
// one made before: adding those members to tools that had none is no
// drift until the fixture is recorded again (then a change is). Settings
// are canonical (sorted members, canonical values), so the rest is
// written again byte for byte.
func olderToolsSetting(g, r json.RawMessage) json.RawMessage {
	var gm, rm map[string]json.RawMessage
	if json.Unmarshal(r, &rm) != nil {
		return r
	}
	if _, ok := rm["tools"]; !ok {
		return r
	}
	if len(g) > 0 && json.Unmarshal(g, &gm) != nil {
		return r
	}
	if _, ok := gm["tools"]; ok {
		return r
	}
	delete(rm, "tools")
	if len(rm) == 0 {
		return nil
	}
	out := []byte{'{'}
	for i, k := range slices.Sorted(maps.Keys(rm)) {
		if i > 0 {
			out = append(out, ',')
		}
		// As the wire writes a setting's name (wire.settings).
		out = append(append(jsonscan.AppendStdString(out, k), ':'), rm[k]...)
	}
	return append(out, '}')
}

// withoutToolDigests returns a copy of a request/header payload without
// its toolDigests member, as the encoder writes it (short hex digests), or
// nil when it holds none so written.
func withoutToolDigests(data []byte) []byte {
	key := []byte(`,"toolDigests":[`)
	i := bytes.Index(data, key)
	if i < 0 {
		return nil
	}
	for j := i + len(key); j < len(data); j++ {
		switch c := data[j]; {
		case c == ']':
			return slices.Concat(data[:i], data[j+1:])
		case c != '"' && c != ',' && (c < '0' || c > '9') && (c < 'a' || c > 'f'):
			return nil
		}
	}
	return nil
}
