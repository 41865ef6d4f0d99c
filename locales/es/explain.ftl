# Spanish messages of locales/en/explain.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

## What the device does

plain-mirrored = Su dispositivo dice la verdad el { $truth } % de las veces y lo contrario en las demás.
plain-forced = Su dispositivo dice la verdad el { $truth } % de las veces; en las demás responde Sí ({ $yes } %) o No ({ $no } %), sea cual sea su respuesta.
plain-unrelated = Su dispositivo dice la verdad el { $truth } % de las veces; en las demás responde Sí o No al azar (Sí el { $yes } % de las veces), sea cual sea su respuesta.
plain-options = Su dispositivo declara la opción que usted elige el { $chosen } % de las veces, y cada una de las demás opciones el { $other } % de las veces.
plain-number = Su dispositivo redondea su número al azar a { $min } o { $max } (el extremo más cercano es más probable) y luego declara ese extremo el { $truth } % de las veces, y el otro en las demás.

## What someone who sees the report learns

observer-yes-no = Alguien que creyera que había un { $prior } % de probabilidad de que su respuesta verdadera fuera Sí lo creería, tras ver una declaración Sí, como mucho en un { $posterior } %. (ε = { $epsilon })
observer-option = Alguien que creyera que había un { $prior } % de probabilidad de que su respuesta fuera «{ $option }» lo creería, tras ver declarada esa opción, como mucho en un { $posterior } %. (ε = { $epsilon })
observer-number = Alguien que creyera que había un { $prior } % de probabilidad de que su número fuera { $max } y no { $min } lo creería, tras ver una declaración de { $max }, como mucho en un { $posterior } %. (ε = { $epsilon })

## A report in words (lists of sent and stored reports)

report-lower-end = el extremo inferior ({ $value })
report-upper-end = el extremo superior ({ $value })
