package responses

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// notTextError is a content part that is not text (an image, a file,
// audio): agentsnap does not record it in this API yet.
type notTextError struct {
	index int
	typ   string
}

func (e *notTextError) Error() string {
	return llm.NotRecorded(fmt.Sprintf("[%d]", e.index), e.typ).Error()
}

// mediaParts reads raw, content or output that contentText refused with
// err, as parts: its text between images, files and audio a text part
// each, and an image or file part for each of them, whose part as sent
// b keeps (builder.media) for their places in the message b adds
// next, the content of its tool result when result is set. Any other part
// is err, or the error of the first that says too little.
func (b *builder) mediaParts(raw json.RawMessage, err error, result bool) ([]session.Part, error) {
	var nt *notTextError
	if !errors.As(err, &nt) {
		return nil, err
	}
	var elems []json.RawMessage
	if json.Unmarshal(raw, &elems) != nil {
		return nil, err
	}
	var parts []session.Part
	var run strings.Builder
	for k, elem := range elems {
		var c struct {
			Type       string `json:"type"`
			Text       string `json:"text"`
			Refusal    string `json:"refusal"`
			ImageURL   string `json:"image_url"`
			FileID     string `json:"file_id"`
			FileData   string `json:"file_data"`
			FileURL    string `json:"file_url"`
			Filename   string `json:"filename"`
			InputAudio *struct {
				Data   string `json:"data"`
				Format string `json:"format"`
			} `json:"input_audio"`
		}
		if json.Unmarshal(elem, &c) != nil {
			return nil, err
		}
		var p session.Part
		var perr error
		switch {
		case c.Type == "refusal":
			run.WriteString(c.Refusal)
			continue
		case c.Type == "input_image" && c.ImageURL != "":
			p, perr = llm.AttachURL(session.PartImage, "", "", c.ImageURL)
		case c.Type == "input_image" && c.FileID != "":
			p = llm.AttachFile(session.PartImage, "", "", c.FileID)
		case c.Type == "input_image":
			// An image part without its image: the agent's mistake, not a
			// part agentsnap does not record.
			return nil, &partError{k, errors.New("an input_image part with an empty image_url and no file_id: give it the image's https: or data: URL, or an uploaded file's id, or leave the part out")}
		case c.Type == "input_file" && c.FileData != "":
			if strings.HasPrefix(c.FileData, "data:") {
				p, perr = llm.AttachURL(session.PartFile, "", c.Filename, c.FileData)
			} else {
				p, perr = llm.AttachBase64(session.PartFile, "", c.Filename, c.FileData)
			}
		case c.Type == "input_file" && c.FileURL != "":
			p, perr = llm.AttachURL(session.PartFile, "", c.Filename, c.FileURL)
		case c.Type == "input_file" && c.FileID != "":
			p = llm.AttachFile(session.PartFile, "", c.Filename, c.FileID)
		case c.Type == "input_audio" && c.InputAudio != nil && strings.TrimSpace(c.InputAudio.Data) != "" && c.InputAudio.Format != "":
			p, perr = llm.AttachBase64(session.PartFile, "audio/"+c.InputAudio.Format, "", c.InputAudio.Data)
		case c.Type == "input_audio" && c.InputAudio != nil:
			// Recorded, it would be an empty attachment, or one of media
			// type "audio/".
			return nil, &partError{k, errors.New(audioMissing(c.InputAudio.Data))}
		case c.Type == "input_file":
			// A part agentsnap records, without its file: the agent's
			// mistake, as an input_image without its image is.
			return nil, &partError{k, errors.New("an input_file part with none of file_data, file_url and file_id: give it the file's data, its URL or an uploaded file's id, or leave the part out")}
		case c.Type == "input_audio":
			return nil, &partError{k, errors.New("an input_audio part without its input_audio (data and format): give it the audio, or leave the part out")}
		default:
			if k, _ := notText([]Part{{Type: c.Type}}); k < 0 {
				run.WriteString(c.Text)
				continue
			}
			return nil, &notTextError{k, c.Type}
		}
		if perr != nil {
			return nil, &partError{k, perr}
		}
		if run.Len() > 0 {
			parts = append(parts, session.TextPart(run.String()))
			run.Reset()
		}
		at := llm.Place{Message: len(b.before) + len(b.msgs), Part: len(parts)}
		if result {
			at = llm.Place{Message: at.Message, Inner: len(parts) + 1}
		}
		b.media = b.media.Add(&p, at, elem)
		parts = append(parts, p)
	}
	if run.Len() > 0 {
		parts = append(parts, session.TextPart(run.String()))
	}
	return parts, nil
}

// inContent is err, of reading member (content, output), said where.
func inContent(member string, err error) error {
	var nt *notTextError
	if errors.As(err, &nt) {
		return llm.NotRecorded(fmt.Sprintf("%s[%d]", member, nt.index), nt.typ)
	}
	var pe *partError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s[%d]: %w", member, pe.index, pe.err)
	}
	return fmt.Errorf("%s: %w", member, err)
}

// audioMissing says what an input_audio part whose input_audio member is
// there lacks — its data (else its format) — and what to do.
func audioMissing(data string) string {
	if strings.TrimSpace(data) == "" {
		return "an input_audio part whose input_audio.data is empty: give it the audio, base64-encoded, or leave the part out"
	}
	return "an input_audio part whose input_audio.format is empty: give it the audio's format (wav, mp3), or leave the part out"
}

// partError is what is wrong with the part at index of a content array;
// inContent names it as member[index].
type partError struct {
	index int
	err   error
}

func (e *partError) Error() string { return fmt.Sprintf("[%d]: %v", e.index, e.err) }
func (e *partError) Unwrap() error { return e.err }

// notText returns the index and type of the first part that is neither
// text nor a refusal (nor null), or -1.
func notText(parts []Part) (int, string) {
	for k, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text", "summary_text", "reasoning_text", "refusal", "":
		default:
			return k, p.Type
		}
	}
	return -1, ""
}
