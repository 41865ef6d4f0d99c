# French messages of locales/en/error.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

not-found-title = Enquête introuvable
not-found-body = Il n'y a pas d'enquête à cette adresse. Vérifiez que le lien que vous avez reçu est complet ; l'enquête a aussi pu être supprimée, ou ne pas être encore ouverte.
not-found-nothing-sent = Rien n'a été envoyé depuis cette page.
error-title = Un problème est survenu
error-body = Le serveur n'a pas pu traiter cette requête (erreur { $status }). Veuillez réessayer plus tard.

# The builder's refusals, beside the field they concern (the researcher's browser language).
builder-epsilon-range = Le niveau de confidentialité ε doit être compris entre { $min } et { $max } ; vous avez saisi { $got }.
builder-text-length = Le texte de la question doit compter entre { $min } et { $max } caractères ; il en compte { $count }.
