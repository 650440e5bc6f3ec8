package recorder

// KeepRecorded is what an only-changed recording keeps of the recording
// (keepRecorded): it may replace the rendered logs and their files, and
// returns the lineage paths of the logs kept whole.
var KeepRecorded = keepRecorded
