# German messages of locales/en/error.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

not-found-title = Umfrage nicht gefunden
not-found-body = Unter dieser Adresse gibt es keine Umfrage. Prüfen Sie, ob der Link, den Sie erhalten haben, vollständig ist; die Umfrage kann auch gelöscht worden oder noch nicht geöffnet sein.
not-found-nothing-sent = Von dieser Seite wurde nichts gesendet.
error-title = Etwas ist schiefgelaufen
error-body = Der Server konnte diese Anfrage nicht bearbeiten (Fehler { $status }). Bitte versuchen Sie es später erneut.

# The builder's refusals, beside the field they concern (the researcher's browser language).
builder-epsilon-range = Die Privatsphäre-Stufe ε muss zwischen { $min } und { $max } liegen; Sie haben { $got } eingegeben.
builder-text-length = Der Text der Frage muss zwischen { $min } und { $max } Zeichen haben; er hat { $count }.
