package loop

// DecodeAgentFast is ParseScenarioAgent's reading of a usual agent member.
func DecodeAgentFast(raw []byte, dst *ScenarioAgent) bool { return decodeAgentFast(raw, dst) }
