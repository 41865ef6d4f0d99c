# French messages of locales/en/explain.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

## What the device does

plain-mirrored = Votre appareil dit la vérité { $truth } % du temps, et le contraire sinon.
plain-forced = Votre appareil dit la vérité { $truth } % du temps ; sinon, il répond Oui ({ $yes } %) ou Non ({ $no } %), quelle que soit votre réponse.
plain-unrelated = Votre appareil dit la vérité { $truth } % du temps ; sinon, il répond Oui ou Non au hasard (Oui { $yes } % du temps), quelle que soit votre réponse.
plain-options = Votre appareil déclare l'option que vous choisissez { $chosen } % du temps, et chacune des autres options { $other } % du temps.
plain-number = Votre appareil arrondit votre nombre au hasard à { $min } ou { $max } (la borne la plus proche est la plus probable), puis déclare cette borne { $truth } % du temps, et l'autre sinon.

## What someone who sees the report learns

observer-yes-no = Une personne qui estimait à { $prior } % la probabilité que votre vraie réponse soit Oui l'estimerait, après avoir vu une déclaration Oui, à { $posterior } % au plus. (ε = { $epsilon })
observer-option = Une personne qui estimait à { $prior } % la probabilité que votre réponse soit « { $option } » l'estimerait, après avoir vu cette option déclarée, à { $posterior } % au plus. (ε = { $epsilon })
observer-number = Une personne qui estimait à { $prior } % la probabilité que votre nombre soit { $max } plutôt que { $min } l'estimerait, après avoir vu une déclaration de { $max }, à { $posterior } % au plus. (ε = { $epsilon })

## A report in words (lists of sent and stored reports)

report-lower-end = la borne inférieure ({ $value })
report-upper-end = la borne supérieure ({ $value })
