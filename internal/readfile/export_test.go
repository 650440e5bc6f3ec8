package readfile

// AppendRegular is appendRegular, for specs that count a reader's reads.
var AppendRegular = appendRegular
