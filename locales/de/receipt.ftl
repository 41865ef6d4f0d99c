# German messages of locales/en/receipt.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

receipt-page-title = Ihre Antwort
receipt-page-heading = Ihre Antwort auf „{ $title }“
receipt-page-intro = Fügen Sie die Quittung ein, die Sie nach dem Antworten erhalten haben. Damit können Sie die randomisierten Meldungen einsehen, die der Server für Sie speichert, oder sie zurückziehen. Die Quittung wird im Inhalt der Anfrage gesendet, nie in einer Adresse, und der Server speichert nur einen Hashwert eines Hashwerts davon.
found-heading = Zu dieser Quittung gespeichert
found-explain = Das sind die randomisierten Meldungen, nicht Ihre wahren Antworten: Jede kann von Ihrer Wahl abweichen, und genau das schützt Sie.
found-report = { $number }. { $question } — Meldung: { $report }
found-grouping = { $number }. { $question } — { $answer } (so gesendet, wie Sie es angaben, nicht randomisiert)
receipt-withdraw-warning = Das Zurückziehen löscht Ihre Antwort aus den Dateien des Servers. War sie in den Ergebnissen der Forschenden schon gezählt, zeigt ihnen die Änderung dieser Summen Ihre durch Münzwurf entstandenen Meldungen (nie Ihre wahren Antworten).
found-record = Ihre Zeile im Export der Forschenden heißt { $record } (der SHA-256 Ihrer Antwort-ID).
withdrawn-heading = Zurückgezogen
withdrawn-body = Ihre Antwort ist aus den Dateien des Servers entfernt, und die Schätzungen zählen sie nicht mehr. Sie kann nicht erneut gesendet werden.
receipt-not-found = Zu dieser Quittung ist in dieser Umfrage nichts gespeichert: Prüfen Sie, ob sie vollständig ist (43 Zeichen); vielleicht wurde die Antwort auch zurückgezogen.
receipt-label = Quittung
receipt-help = 43 Buchstaben, Ziffern, „-“ und „_“.
receipt-view = Meine Meldungen ansehen
receipt-withdraw = Meine Antwort zurückziehen
back-to-survey = Zurück zur Umfrage

withdraw-confirm-heading = Diese Antwort zurückziehen?
withdraw-confirm-body = Das Zurückziehen lässt sich nicht rückgängig machen: Ihre Meldungen werden vom Server gelöscht, und mit dieser Quittung lassen sie sich nie wieder senden oder ansehen.
withdraw-confirm-yes = Ja, endgültig zurückziehen
withdraw-confirm-keep = Nein, meine Antwort behalten

js-withdrawn-dropped = Dieser Browser versuchte noch, diese Meldungen zu senden; er hat sie verworfen und wird sie nicht erneut senden.
js-withdrawn-remembered = Dieser Browser merkt sich, dass er diese Umfrage beantwortet hat, daher sendet sein Formular nicht erneut. Die Schaltfläche „Diese Umfrage auf diesem Gerät vergessen“ löscht auch das.
