# The receipt page (templates/receipt.html) and its script (static/receipt.js).

receipt-page-title = Your response
# $title: the survey's title, as the researcher wrote it.
receipt-page-heading = Your response to “{ $title }”
receipt-page-intro =
    Paste the receipt you were given after answering. With it you can see the randomized
    reports the server holds for you, or withdraw them. The receipt is sent in the body of
    the request, never in an address, and the server keeps only a hash of a hash of it.
found-heading = Stored for this receipt
found-explain =
    These are the randomized reports, not your true answers: each may differ from what
    you chose, which is what protects you.
# $number, $question: the question; $report: the stored report, emphasized.
found-report = { $number }. { $question } — report: { $report }
# $number, $question: a grouping question; $answer: the stored answer, emphasized.
found-grouping = { $number }. { $question } — { $answer } (sent as given, not randomized)
receipt-withdraw-warning =
    Withdrawing deletes your response from the server's files. If it was already counted
    in the researcher's results, the change in those totals shows the researcher your
    coin-flipped reports (never your true answers).
# $record: the record id, as code.
found-record =
    Your row in the researchers' export is named { $record } (the SHA-256 of your
    response id).
withdrawn-heading = Withdrawn
withdrawn-body =
    Your response is gone from the server's files, and the estimates no longer count it.
    It cannot be sent again.
receipt-not-found =
    Nothing is stored for this receipt in this survey: check that it is complete (43
    characters), or it may have been withdrawn.
receipt-label = Receipt
receipt-help = 43 letters, digits, “-” and “_”.
receipt-view = View my reports
receipt-withdraw = Withdraw my response
back-to-survey = Back to the survey

# The second step of a withdrawal: nothing is withdrawn until this is confirmed.
withdraw-confirm-heading = Withdraw this response?
withdraw-confirm-body =
    Withdrawing cannot be undone: your reports are deleted from the server, and this
    receipt can never send or show them again.
withdraw-confirm-yes = Yes, withdraw it for good
withdraw-confirm-keep = No, keep my response

js-withdrawn-dropped =
    This browser was still trying to send these reports; it has dropped them and will not
    send them again.
js-withdrawn-remembered =
    This browser remembers that it answered this survey, so its form will not send again.
    Its “Forget this survey on this device” button clears that too.
