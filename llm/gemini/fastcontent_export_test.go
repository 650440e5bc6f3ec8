package gemini

// DecodeContent and FastContent are decodeContent and fastContent, for the
// specs of the hand reader of a request's contents.
var (
	DecodeContent = decodeContent
	FastContent   = fastContent
)
