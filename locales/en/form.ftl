# The respondent's form (templates/survey.html) and its script (static/form.js, the
# messages whose names start with "js-"). The survey's own texts are the researcher's
# and are never translated here.
#
# Variables of "js-" messages are filled in by the script; they cannot select variants.

## Before the questions

preview-banner = Preview: this is the form as respondents will see it. Nothing can be sent from here.
preview-back = Back to the builder
# $researcher: the researcher's name, as they wrote it.
intro-run-by = This survey is run by { $researcher }.
# $contact: a link to the researcher's e-mail or web address.
intro-contact = Questions about it: { $contact }.
consent-heading = Information and consent
consent-agree = I have read the information above and agree to take part.
consent-hint = Sending is possible once you have ticked that you agree.
question-missing = Not answered yet.

privacy-heading = How your answers are protected
privacy-coins =
    Before anything leaves this device, it flips biased coins: for each question it
    sends either your true answer or a random one, as explained under the question. The
    server never learns which, so any single answer it holds is deniable. Across many
    people the coin flips average out, which is how researchers still learn the overall
    proportions.
# $reports: the word "reports" (privacy-reports-term), emphasized;
# $epsilon: "ε = 1.10", emphasized.
privacy-sent =
    Only the coin-flipped answers (the { $reports }) are sent: no true answer, no
    cookie, no name. The privacy level of the whole survey is { $epsilon } (the sum
    over its questions; smaller is more private).
privacy-reports-term = reports
# Beside the total ε (docs/design.md, invariant 11): who sees what. $k: min_cell;
# $after: "yes" when no figure is shown before the survey closes.
privacy-owner-totals =
    The researcher sees only totals of at least { $k } responses{ $after ->
        [yes] , and none before the survey closes
       *[no] {""}
    }; someone who runs this server, or sends fake responses, could still single yours
    out, so the coin flips are what protect you.
privacy-answer-all =
    Please answer every question. Each answer is randomized, so none can be held against
    you; a question left blank would not be, and a blank says something too.

status-draft = This survey is not open yet: nothing can be sent.
status-closed = This survey is closed: nothing can be sent.
needs-javascript =
    This survey needs JavaScript: your answers are randomized on your device by a small
    program before anything is sent. Without it nothing can be sent, and nothing has been
    sent.
needs-webassembly =
    Your browser cannot run WebAssembly or lacks a secure random generator, which this
    survey needs to randomize your answers on your device. Nothing can be sent, and
    nothing has been sent.

# Inside another website's frame (issue 35), followed by a link to the survey's own address.
frame-notice =
    You are answering inside another website's page, which shows no address bar. To check
    that this is the real survey, open it in a tab of its own:
# Near the send button when the browser lets this page keep nothing on the device.
storage-warning =
    This browser does not let this page remember anything on your device. Your answers are
    randomized once, when you send them: please stay on this page until it says “Sent”. If
    the page is reloaded or closed before then, it forgets that you answered, and answering
    again would flip new coins, which weakens your protection (an invitation, if you have
    one, is used only when you send).

## A revisit from the same browser

memo-heading = Already answered on this device
memo-body =
    This browser has already answered this survey. It keeps only the randomized reports
    below (never your true answers) so that it never flips new coins for the same
    questions: new coins each time would, added up, reveal your true answers. Nothing more
    will be sent from here.
memo-shared = On a shared device, or to answer again as someone else, let this device forget it.
forget-button = Forget this survey on this device

## The questions

answer-yes = Yes
answer-no = No
# $min, $max: the bounds of a number question.
number-label = Your number, from { $min } to { $max }
number-slider = Your number, from { $min } to { $max } (slider)
details-summary = What can someone learn from the report?
send-button = Randomize and send

## After sending

sent-heading = Sent
sent-intro = The server received only these randomized reports:
sent-explain =
    A report may differ from your true answer: for each question your device sent a
    random answer with the chance shown under it. That is what protects you. Nobody who
    sees a report (the researcher, the server, or anyone who breaks into it) can tell
    whether it is your true answer or the coin's; only the proportions over many people
    can be estimated.
receipt-heading = Your receipt
receipt-once =
    It is shown only this once: this device does not keep it. Keep it secret, since
    anyone holding it can see or withdraw your reports. The server stores only a hash of
    it, so it cannot tell whose response is whose.
receipt-copy = Copy
receipt-download = Download (.txt)
# $link: a link whose text is receipt-link-text.
receipt-link = { $link } with this receipt.
receipt-link-text = View or withdraw your response
sent-kept =
    This device still keeps the reports above (never your true answers), so that it
    cannot be made to answer this survey twice with new coins. On a shared device, let it
    forget them.

# After the receipt: the link back to the study that sent the respondent here.
continue-link = Continue
continue-missing =
    The details of the link you came from are gone because this page was reloaded, so the
    link above leaves them out. Opening your original link again fills them in.

## Messages of the form's script

js-trying-again = Trying again…
js-why-no-answer = no answer from the server
js-why-status = the server answered { $status }
# $why: js-why-no-answer or js-why-status.
js-retrying =
    Busy ({ $why }), retrying in { $seconds } s. Your reports are kept on this device and
    will be sent unchanged: no new coins are flipped.
# One line of a list of sent reports: "2. Have you…? — reported: Yes".
js-reported = { $number }. { $question } — reported: { $report }
js-forgot = This device forgot this survey. Answering again flips new coins.
js-copied = Copied.
js-selected = Selected: copy it with your device's copy command.
js-receipt-file-title = Deniable receipt for the survey “{ $title }”
js-receipt-file-link = To view or withdraw your response: { $url }
js-receipt-file-secret = Keep it secret: anyone holding it can see or withdraw your reports.
js-downloaded = Downloaded as { $file }.
js-sent-forgot = This device forgot this survey: it keeps nothing of it now.
js-refused-closed = The survey closed before your reports arrived. Nothing more will be sent from this device.
js-refused-withdrawn = This response was withdrawn and cannot be sent again. Nothing more will be sent from this device.
js-refused-invitation = This invitation is unknown or has already been used. Nothing more will be sent from this device.
js-refused = The server refused the reports (error { $status }). Nothing more will be sent from this device.
js-randomizing = Randomizing on this device…
js-cannot-load = Cannot load the survey (no answer or an error); nothing was sent. Try again later.
js-not-open = This survey is not open; nothing was sent.
js-needs-invitation = This survey needs your personal invitation link. Nothing was sent.
js-needs-consent = Please tick that you agree to take part first. Nothing was sent.
# aria-valuetext of a number question's slider while its box is empty.
js-slider-unset = no value chosen yet
js-needs-whole-number = Question { $number } needs a whole number from { $min } to { $max }. Nothing was sent.
js-needs-number = Question { $number } needs a number from { $min } to { $max }. Nothing was sent.
# $numbers: one question number.
js-missing-one =
    Please answer question { $numbers }: every question is randomized, so no answer can
    be held against you. Nothing was sent.
# $numbers: several question numbers, listed with js-list-and ("1, 2 and 3").
js-missing-many =
    Please answer questions { $numbers }: every question is randomized, so no answer can
    be held against you. Nothing was sent.
# $items: all but the last, separated by ", ".
js-list-and = { $items } and { $last }
js-other-tab = This device has just answered this survey in another tab; nothing more was sent.
js-sending = Sending…
js-sending-stored = Sending your stored reports…

## Messages of the invitation script (form-tokens.js)

js-token-exchanging = Exchanging your invitation for an anonymous token on this device…
js-token-waiting = Exchanging your invitation: the server has not answered yet; trying again…
# $fingerprint: the survey key's fingerprint, 64 hexadecimal characters in groups.
js-token-ready =
    Your invitation was exchanged for an anonymous token on this device: the organisers learn
    that you took part, never which answers are yours. Survey key fingerprint: { $fingerprint }
    (the one in your invitation link).
js-token-used =
    This invitation has already been used (from another device or browser, or after this
    browser forgot it). Ask the survey's organisers for a new invitation. Nothing was sent.
js-token-invalid = This invitation link is not valid for this survey. Nothing was sent.
js-token-closed = This survey is closed: the invitation can no longer be used. Nothing was sent.
js-token-failed = The invitation could not be exchanged (error { $status }). Nothing was sent.
js-token-unsupported = This browser cannot run the survey's token module. Nothing was sent.
# $server, $link: the first 16 characters of two key fingerprints.
js-key-mismatch =
    The survey key this server presents (fingerprint { $server }…) is not the one your
    invitation link was made for ({ $link }…). A server could use a key of your own to
    recognise your answers, so this page will not use it. Nothing was sent; please tell the
    survey's organisers.
js-key-missing =
    This invitation link does not say which survey key it was made for, so this page cannot
    check that everyone is given the same key. Nothing was sent; please ask for a new link.
js-key-not-published = This survey publishes no key for invitations, so this link cannot be used here. Nothing was sent.
js-key-other-token = This device already holds a token for this survey, bought with a link for another survey key. Nothing was sent.
js-proof-rejected =
    The server's answer was not made with the survey's key, so this page will not use it.
    Nothing was sent; please tell the survey's organisers.

## Grouping questions (issue 18): not randomized, rendered like a choice.
grouping-plain = This answer is sent as you give it — it is not randomized.
grouping-observer =
    The server and the researcher see this answer as you give it. Results show it only
    for groups of at least { $k } respondents.
grouping-unrandomized = Not randomized, sent as you give them: { $questions }
