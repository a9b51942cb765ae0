package notimerecord

import "github.com/obaudit/obaudit/internal/jsonfield"

// Pointer is the JSON pointer of the value a refusal of the named checks is
// about (the oracle matches its exceptions by it).
var Pointer = jsonfield.PointerOf
