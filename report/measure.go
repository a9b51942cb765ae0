package report

// Text measurement for the layout. The page asks for DejaVu Sans first (CI
// installs fonts-dejavu-core, and Debian's chromium uses it); these are its
// advance widths in 1/2048 em, so the layout can prove that no two labels
// overlap and none leaves the drawing without a browser. A rune outside the
// table is measured as the widest Latin capital, and every width is padded
// by 4%, so an estimate errs wide.
var advance = map[rune]int{
	' ': 651, '!': 821, '"': 942, '#': 1716, '$': 1303, '%': 1946, '&': 1597, '\'': 563,
	'(': 799, ')': 799, '*': 1024, '+': 1716, ',': 651, '-': 739, '.': 651, '/': 690,
	'0': 1303, '1': 1303, '2': 1303, '3': 1303, '4': 1303, '5': 1303, '6': 1303, '7': 1303, '8': 1303, '9': 1303,
	':': 690, ';': 690, '<': 1716, '=': 1716, '>': 1716, '?': 1087, '@': 2048,
	'A': 1401, 'B': 1405, 'C': 1430, 'D': 1577, 'E': 1294, 'F': 1178, 'G': 1587, 'H': 1540, 'I': 604,
	'J': 604, 'K': 1343, 'L': 1141, 'M': 1767, 'N': 1532, 'O': 1612, 'P': 1235, 'Q': 1612, 'R': 1423,
	'S': 1300, 'T': 1251, 'U': 1499, 'V': 1401, 'W': 2025, 'X': 1403, 'Y': 1251, 'Z': 1403,
	'[': 799, '\\': 690, ']': 799, '^': 1716, '_': 1024, '`': 1024,
	'a': 1255, 'b': 1300, 'c': 1126, 'd': 1300, 'e': 1260, 'f': 721, 'g': 1300, 'h': 1298, 'i': 569,
	'j': 569, 'k': 1186, 'l': 569, 'm': 1995, 'n': 1298, 'o': 1253, 'p': 1300, 'q': 1300, 'r': 842,
	's': 1067, 't': 803, 'u': 1298, 'v': 1212, 'w': 1675, 'x': 1212, 'y': 1212, 'z': 1075,
	'{': 1303, '|': 690, '}': 1303, '~': 1716, '×': 1716, '→': 1716, '✗': 1716, '…': 2048, '·': 651,
	'▼': 1600, '✓': 1716,
}

const fallbackAdvance = 2048

// textWidth is the estimated width in pixels of s at size px, bold or not
// (DejaVu Sans Bold is about 11% wider).
func textWidth(s string, px float64, bold bool) float64 {
	var u int
	for _, r := range s {
		a, ok := advance[r]
		if !ok {
			a = fallbackAdvance
		}
		u += a
	}
	w := float64(u) / 2048 * px * 1.04
	if bold {
		w *= 1.11
	}
	return w
}
