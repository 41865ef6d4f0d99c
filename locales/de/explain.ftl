# German messages of locales/en/explain.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

## What the device does

plain-mirrored = Ihr Gerät meldet in { $truth } % der Fälle die Wahrheit und sonst das Gegenteil.
plain-forced = Ihr Gerät meldet in { $truth } % der Fälle die Wahrheit; sonst antwortet es, unabhängig von Ihrer Antwort, Ja ({ $yes } %) oder Nein ({ $no } %).
plain-unrelated = Ihr Gerät meldet in { $truth } % der Fälle die Wahrheit; sonst antwortet es, unabhängig von Ihrer Antwort, zufällig Ja oder Nein (Ja in { $yes } % der Fälle).
plain-options = Ihr Gerät meldet die Option, die Sie wählen, in { $chosen } % der Fälle und jede andere Option in { $other } % der Fälle.
plain-number = Ihr Gerät rundet Ihre Zahl zufällig auf { $min } oder { $max } (das nähere Ende ist wahrscheinlicher) und meldet dann in { $truth } % der Fälle dieses Ende, sonst das andere.

## What someone who sees the report learns

observer-yes-no = Wer es zu { $prior } % für möglich hielt, dass Ihre wahre Antwort Ja lautet, hält es nach einer Ja-Meldung für höchstens { $posterior } % wahrscheinlich. (ε = { $epsilon })
observer-option = Wer es zu { $prior } % für möglich hielt, dass Ihre Antwort „{ $option }“ lautet, hält es, nachdem diese Option gemeldet wurde, für höchstens { $posterior } % wahrscheinlich. (ε = { $epsilon })
observer-number = Wer es zu { $prior } % für möglich hielt, dass Ihre Zahl { $max } statt { $min } ist, hält es nach einer Meldung von { $max } für höchstens { $posterior } % wahrscheinlich. (ε = { $epsilon })

## A report in words (lists of sent and stored reports)

report-lower-end = das untere Ende ({ $value })
report-upper-end = das obere Ende ({ $value })
