# man/totext.awk - renders the small roff subset gq's man pages use as plain
# text, for `gq help` and `gq CMD -h` (embedded at build time). Not a roff
# implementation: it knows .TH .SH .SS .PP .LP .P .TP .IP .RS .RE .nf .fi
# .EX .EE .B .I .BR .RB .IR .RI .BI .IB and the escapes \fB \fI \fR \fP \-
# \e \& \(aq \(em \(bu; other requests are skipped (.br and .sp break the
# line), other escapes dropped, so that any page still builds.
function inline(s) {
	gsub(/\\f[BIRP]/, "", s)
	gsub(/\\-/, "-", s)
	gsub(/\\\(aq/, "'", s)
	gsub(/\\\(em/, "--", s)
	gsub(/\\&/, "", s)
	gsub(/\\\(bu/, "*", s)
	gsub(/\\\(mu/, "×", s)
	gsub(/\\\(lq|\\\(rq/, "\"", s)
	gsub(/\\\([a-z][a-z]/, "", s)
	gsub(/\\\*\(..|\\\*./, "", s)
	gsub(/\\s[-+]?[0-9]/, "", s)
	gsub(/\\e/, "\\", s)
	return s
}
# The arguments of a font macro, quotes removed, joined without spaces
# (.BR a b -> "ab") or with them (.B a b -> "a b").
function args(line, join,    out, n, i, a, rest, tok) {
	rest = line
	out = ""; n = 0
	while (rest != "") {
		sub(/^[ \t]+/, "", rest)
		if (rest == "") break
		if (substr(rest, 1, 1) == "\"") {
			i = index(substr(rest, 2), "\"")
			if (i == 0) { tok = substr(rest, 2); rest = "" }
			else { tok = substr(rest, 2, i - 1); rest = substr(rest, i + 2) }
		} else {
			i = match(rest, /[ \t]/)
			if (i == 0) { tok = rest; rest = "" }
			else { tok = substr(rest, 1, i - 1); rest = substr(rest, i) }
		}
		out = out (n++ && join ? " " : "") tok
	}
	return out
}
function flush(    words, n, i, line, w, first) {
	if (para == "" && pendtag == "") return
	n = split(para, words, /[ \t]+/)
	line = ""
	first = 1
	for (i = 1; i <= n; i++) {
		w = words[i]
		if (w == "") continue
		if (line != "" && length(line) + 1 + length(w) + indent > 78) {
			putline(line, first)
			first = 0
			line = ""
		}
		line = line == "" ? w : line " " w
	}
	if (line != "" || pendtag != "") putline(line, first)
	para = ""
	pendtag = ""
}
# A line of filled text; the first one of a short .TP/.IP tag starts with
# the tag, the text beside it.
function putline(line, first) {
	if (first && pendtag != "")
		printf "%*s%-7s%s\n", indent - 7, "", pendtag, line
	else
		printf "%*s%s\n", indent, "", line
}
function blank() {
	flush()
	if (!lastblank && started) print ""
	lastblank = 1
}
function text(s) {
	s = inline(s)
	if (nofill) {
		flush()
		printf "%*s%s\n", indent, "", s
		lastblank = 0; started = 1
		return
	}
	para = para == "" ? s : para " " s
	lastblank = 0; started = 1
}
BEGIN { pendtag = ""; base = 7; indent = base; nofill = 0; para = ""; started = 0; lastblank = 1; tagnext = 0 }
/^\.\\"/ { next }
/^\.TH/ { next }
/^\.SH/ { blank(); t = args(substr($0, 4), 1); print inline(t); started = 1; lastblank = 1
	base = 7; indent = base; next }
/^\.SS/ { blank(); t = args(substr($0, 4), 1); printf "   %s\n", inline(t); lastblank = 1; indent = base; next }
/^\.(PP|LP|P)[ \t]*$/ { blank(); indent = base; next }
/^\.TP/ { blank(); indent = base; tagnext = 1; next }
/^\.IP/ { blank(); indent = base; t = args(substr($0, 4), 1)
	if (t != "") { tagline = inline(t); emit_tag() } next }
/^\.RS/ { flush(); base += 7; indent = base; next }
/^\.RE/ { flush(); base -= 7; if (base < 7) base = 7; indent = base; next }
/^\.(nf|EX)[ \t]*$/ { flush(); nofill = 1; next }
/^\.(fi|EE)[ \t]*$/ { flush(); nofill = 0; next }
/^\.(B|I)[ \t]/ { line = args(substr($0, 3), 1); handle(line); next }
/^\.(BR|RB|IR|RI|BI|IB)[ \t]/ { line = args(substr($0, 4), 0); handle(line); next }
/^\.(br)[ \t]*$/ { flush(); next }
/^\.(sp)/ { blank(); next }
/^[.']/ { next }
{ handle($0) }
function handle(s) {
	if (tagnext) { tagnext = 0; tagline = inline(s); emit_tag(); return }
	text(s)
}
# A .TP/.IP tag: on its own line when long, else the paragraph starts
# beside it.
function emit_tag() {
	tagind = base + 7
	indent = tagind
	if (length(tagline) + 1 >= 7)
		printf "%*s%s\n", base, "", tagline
	else
		pendtag = tagline
	started = 1; lastblank = 0
}
END { flush() }
