// Package scenario is the authored side of a fixture: scenario.json (the
// prompts and the agent to run them with), the folder layout every fixture
// shares, and the catalogue of tools a scenario may offer its agent.
//
// A fixture folder fixtures/<category>/<name>/ holds
//
//	scenario.json          prompts, agent preset and tools, description
//	playbook.json          optional authored model turns per session (offline authoring)
//	session.jsonl          root log: the replay source AND the expected log
//	session.<n>.jsonl      children, n from 1, in lineage order
//	transcript.golden      readable transcript of the whole agent tree
//	replay.override.json   optional authored throw/hang entries
package scenario
