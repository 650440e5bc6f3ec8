// Package judge replays a fixture with a runtime and gives the verdict the
// CLI's check and the test harness both report: Replay runs the scenario's
// prompts through the runtime under test (Options.Runtime, required) against
// the replay driver built from the fixture's logs and compares every replayed
// log with the recorded one (request drift, path, consumption) and the
// transcript with transcript.golden; CheckCategory holds a recording to its
// category's rules (CategoryRules); SearchSchedules replays it under seeded
// schedules. A failure ends with the command that fixes it, where one does,
// written for where the user is (Hints).
package judge
