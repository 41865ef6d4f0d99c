# German messages of locales/en/form.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

## Before the questions

preview-banner = Vorschau: So sehen die Befragten das Formular. Von hier aus kann nichts gesendet werden.
preview-back = Zurück zum Editor
intro-run-by = Diese Umfrage wird durchgeführt von { $researcher }.
intro-contact = Fragen dazu: { $contact }.
consent-heading = Information und Einwilligung
consent-agree = Ich habe die obigen Informationen gelesen und bin mit der Teilnahme einverstanden.
consent-hint = Senden ist möglich, sobald Sie angekreuzt haben, dass Sie einverstanden sind.
question-missing = Noch nicht beantwortet.
privacy-heading = Wie Ihre Antworten geschützt sind
privacy-coins = Bevor etwas dieses Gerät verlässt, wirft es ungleich gewichtete Münzen: Für jede Frage sendet es entweder Ihre wahre Antwort oder eine zufällige, wie unter der Frage erklärt. Der Server erfährt nie, welche der beiden es war; jede einzelne Antwort, die er speichert, können Sie daher glaubhaft abstreiten. Über viele Personen hinweg gleichen sich die Münzwürfe aus; so erfahren die Forschenden trotzdem die Anteile insgesamt.
privacy-sent = Gesendet werden nur die durch Münzwurf entstandenen Antworten (die { $reports }): keine wahre Antwort, kein Cookie, kein Name. Das Datenschutzniveau der ganzen Umfrage beträgt { $epsilon } (die Summe über ihre Fragen; je kleiner, desto privater).
privacy-reports-term = Meldungen
privacy-owner-totals = Die Forschenden sehen nur Summen von mindestens { $k } Antworten{ $after ->
        [yes] , und keine, bevor die Umfrage schließt
       *[no] {""}
    }; wer diesen Server betreibt oder gefälschte Antworten sendet, könnte Ihre dennoch herausgreifen – Sie schützt der Münzwurf.
privacy-answer-all = Bitte beantworten Sie jede Frage. Jede Antwort wird randomisiert, daher kann keine gegen Sie verwendet werden; eine leer gelassene Frage würde nicht randomisiert, und auch eine Lücke verrät etwas.
status-draft = Diese Umfrage ist noch nicht geöffnet: Es kann nichts gesendet werden.
status-closed = Diese Umfrage ist geschlossen: Es kann nichts gesendet werden.
needs-javascript = Diese Umfrage benötigt JavaScript: Ein kleines Programm randomisiert Ihre Antworten auf Ihrem Gerät, bevor etwas gesendet wird. Ohne JavaScript kann nichts gesendet werden, und es wurde nichts gesendet.
needs-webassembly = Ihr Browser kann kein WebAssembly ausführen oder hat keinen sicheren Zufallsgenerator; diese Umfrage braucht beides, um Ihre Antworten auf Ihrem Gerät zu randomisieren. Es kann nichts gesendet werden, und es wurde nichts gesendet.

# Inside another website's frame (issue 35), followed by a link to the survey's own address.
frame-notice =
    Sie antworten innerhalb der Seite einer anderen Website, die keine Adressleiste zeigt. Um
    zu prüfen, dass dies die echte Umfrage ist, öffnen Sie sie in einem eigenen Tab:
# Near the send button when the browser lets this page keep nothing on the device.
storage-warning =
    Dieser Browser erlaubt dieser Seite nicht, sich etwas auf Ihrem Gerät zu merken. Ihre
    Antworten werden einmal randomisiert, wenn Sie sie senden: Bitte bleiben Sie auf dieser
    Seite, bis sie „Gesendet“ anzeigt. Wird die Seite vorher neu geladen oder geschlossen,
    vergisst sie, dass Sie geantwortet haben, und eine erneute Antwort würde neue Münzen
    werfen, was Ihren Schutz schwächt (eine Einladung, falls Sie eine haben, wird erst beim
    Senden eingelöst).

## A revisit from the same browser

memo-heading = Auf diesem Gerät bereits beantwortet
memo-body = Dieser Browser hat diese Umfrage bereits beantwortet. Er behält nur die randomisierten Meldungen unten (nie Ihre wahren Antworten), damit er für dieselben Fragen nie neue Münzen wirft: Neue Münzen bei jedem Besuch würden zusammengenommen Ihre wahren Antworten verraten. Von hier wird nichts mehr gesendet.
memo-shared = Auf einem gemeinsam genutzten Gerät, oder um als jemand anderes erneut zu antworten, lassen Sie dieses Gerät die Umfrage vergessen.
forget-button = Diese Umfrage auf diesem Gerät vergessen

## The questions

answer-yes = Ja
answer-no = Nein
number-label = Ihre Zahl, von { $min } bis { $max }
number-slider = Ihre Zahl, von { $min } bis { $max } (Schieberegler)
details-summary = Was kann jemand aus der Meldung erfahren?
send-button = Randomisieren und senden

## After sending

sent-heading = Gesendet
sent-intro = Der Server hat nur diese randomisierten Meldungen erhalten:
sent-explain = Eine Meldung kann von Ihrer wahren Antwort abweichen: Für jede Frage hat Ihr Gerät mit der darunter angegebenen Wahrscheinlichkeit eine zufällige Antwort gesendet. Genau das schützt Sie. Niemand, der eine Meldung sieht (die Forschenden, der Server oder wer in ihn eindringt), kann erkennen, ob sie Ihre wahre Antwort ist oder die der Münze; schätzen lassen sich nur die Anteile über viele Personen.
receipt-heading = Ihre Quittung
receipt-once = Sie wird nur dieses eine Mal angezeigt: Dieses Gerät speichert sie nicht. Halten Sie sie geheim, denn wer sie besitzt, kann Ihre Meldungen einsehen oder zurückziehen. Der Server speichert nur einen Hashwert davon und kann daher nicht erkennen, welche Antwort von wem stammt.
receipt-copy = Kopieren
receipt-download = Herunterladen (.txt)
receipt-link = Mit dieser Quittung können Sie { $link }.
receipt-link-text = Ihre Antwort einsehen oder zurückziehen
sent-kept = Dieses Gerät behält die Meldungen oben (nie Ihre wahren Antworten), damit es nicht dazu gebracht werden kann, diese Umfrage ein zweites Mal mit neuen Münzen zu beantworten. Auf einem gemeinsam genutzten Gerät lassen Sie es sie vergessen.

# After the receipt: the link back to the study that sent the respondent here.
continue-link = Weiter
continue-missing =
    Die Angaben des Links, über den Sie gekommen sind, fehlen, weil diese Seite neu geladen
    wurde; der Link oben lässt sie daher weg. Wenn Sie Ihren ursprünglichen Link erneut
    öffnen, werden sie wieder eingesetzt.

## Messages of the form's script

js-trying-again = Neuer Versuch …
js-why-no-answer = keine Antwort vom Server
js-why-status = der Server antwortete { $status }
js-retrying = Ausgelastet ({ $why }), neuer Versuch in { $seconds } s. Ihre Meldungen bleiben auf diesem Gerät und werden unverändert gesendet: Es werden keine neuen Münzen geworfen.
js-reported = { $number }. { $question } — gemeldet: { $report }
js-forgot = Dieses Gerät hat diese Umfrage vergessen. Wer erneut antwortet, wirft neue Münzen.
js-copied = Kopiert.
js-selected = Markiert: Kopieren Sie sie mit dem Kopierbefehl Ihres Geräts.
js-receipt-file-title = Deniable-Quittung für die Umfrage „{ $title }“
js-receipt-file-link = Ihre Antwort einsehen oder zurückziehen: { $url }
js-receipt-file-secret = Halten Sie sie geheim: Wer sie besitzt, kann Ihre Meldungen einsehen oder zurückziehen.
js-downloaded = Heruntergeladen als { $file }.
js-sent-forgot = Dieses Gerät hat diese Umfrage vergessen: Es behält nichts mehr davon.
js-refused-closed = Die Umfrage wurde geschlossen, bevor Ihre Meldungen ankamen. Von diesem Gerät wird nichts mehr gesendet.
js-refused-withdrawn = Diese Antwort wurde zurückgezogen und kann nicht erneut gesendet werden. Von diesem Gerät wird nichts mehr gesendet.
js-refused-invitation = Diese Einladung ist unbekannt oder wurde bereits verwendet. Von diesem Gerät wird nichts mehr gesendet.
js-refused = Der Server hat die Meldungen abgelehnt (Fehler { $status }). Von diesem Gerät wird nichts mehr gesendet.
js-randomizing = Randomisierung auf diesem Gerät …
js-cannot-load = Die Umfrage lässt sich nicht laden (keine Antwort oder ein Fehler); es wurde nichts gesendet. Versuchen Sie es später erneut.
js-not-open = Diese Umfrage ist nicht geöffnet; es wurde nichts gesendet.
js-needs-invitation = Diese Umfrage erfordert Ihren persönlichen Einladungslink. Es wurde nichts gesendet.
js-needs-consent = Bitte kreuzen Sie zuerst an, dass Sie mit der Teilnahme einverstanden sind. Es wurde nichts gesendet.
js-slider-unset = noch kein Wert gewählt
js-needs-whole-number = Frage { $number } braucht eine ganze Zahl von { $min } bis { $max }. Es wurde nichts gesendet.
js-needs-number = Frage { $number } braucht eine Zahl von { $min } bis { $max }. Es wurde nichts gesendet.
js-missing-one = Bitte beantworten Sie Frage { $numbers }: Jede Frage wird randomisiert, daher kann keine Antwort gegen Sie verwendet werden. Es wurde nichts gesendet.
js-missing-many = Bitte beantworten Sie die Fragen { $numbers }: Jede Frage wird randomisiert, daher kann keine Antwort gegen Sie verwendet werden. Es wurde nichts gesendet.
js-list-and = { $items } und { $last }
js-other-tab = Dieses Gerät hat diese Umfrage soeben in einem anderen Tab beantwortet; es wurde nichts weiter gesendet.
js-sending = Wird gesendet …
js-sending-stored = Ihre gespeicherten Meldungen werden gesendet …

## Meldungen des Einladungsskripts (form-tokens.js)

js-token-exchanging = Ihre Einladung wird auf diesem Gerät gegen ein anonymes Token getauscht …
js-token-waiting = Ihre Einladung wird getauscht: Der Server hat noch nicht geantwortet; neuer Versuch …
js-token-ready =
    Ihre Einladung wurde auf diesem Gerät gegen ein anonymes Token getauscht: Die Organisatoren
    erfahren, dass Sie teilgenommen haben, nie aber, welche Antworten Ihre sind.
    Fingerabdruck des Umfrageschlüssels: { $fingerprint } (derselbe wie in Ihrem Einladungslink).
js-token-used =
    Diese Einladung wurde bereits verwendet (auf einem anderen Gerät oder Browser, oder nachdem
    dieser Browser sie vergessen hat). Bitten Sie die Organisatoren um eine neue Einladung. Es
    wurde nichts gesendet.
js-token-invalid = Dieser Einladungslink gilt nicht für diese Umfrage. Es wurde nichts gesendet.
js-token-closed = Diese Umfrage ist geschlossen: Die Einladung kann nicht mehr verwendet werden. Es wurde nichts gesendet.
js-token-failed = Die Einladung konnte nicht getauscht werden (Fehler { $status }). Es wurde nichts gesendet.
js-token-unsupported = Dieser Browser kann das Token-Modul der Umfrage nicht ausführen. Es wurde nichts gesendet.
js-key-mismatch =
    Der Umfrageschlüssel dieses Servers (Fingerabdruck { $server }…) ist nicht der, für den Ihr
    Einladungslink erstellt wurde ({ $link }…). Ein Server könnte Sie an einem eigenen Schlüssel
    wiedererkennen; daher verwendet diese Seite ihn nicht. Es wurde nichts gesendet; bitte
    benachrichtigen Sie die Organisatoren.
js-key-missing =
    Dieser Einladungslink nennt den Umfrageschlüssel nicht, für den er erstellt wurde; daher
    kann diese Seite nicht prüfen, ob alle denselben Schlüssel erhalten. Es wurde nichts
    gesendet; bitte bitten Sie um einen neuen Link.
js-key-not-published = Diese Umfrage veröffentlicht keinen Schlüssel für Einladungen; dieser Link kann hier nicht verwendet werden. Es wurde nichts gesendet.
js-key-other-token = Dieses Gerät hat bereits ein Token für diese Umfrage, erworben mit einem Link für einen anderen Umfrageschlüssel. Es wurde nichts gesendet.
js-proof-rejected =
    Die Antwort des Servers wurde nicht mit dem Schlüssel der Umfrage erstellt; daher verwendet
    diese Seite sie nicht. Es wurde nichts gesendet; bitte benachrichtigen Sie die Organisatoren.

## Grouping questions (issue 18): not randomized, rendered like a choice.
grouping-plain = Diese Antwort wird so gesendet, wie Sie sie geben – sie wird nicht zufällig verändert.
grouping-observer =
    Der Server und die Forschenden sehen diese Antwort so, wie Sie sie geben. Ergebnisse
    zeigen sie nur für Gruppen von mindestens { $k } Befragten.
grouping-unrandomized = Nicht zufällig verändert, so gesendet, wie Sie sie geben: { $questions }
