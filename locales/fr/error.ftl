# French messages of locales/en/error.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

not-found-title = Enquête introuvable
not-found-body = Il n'y a pas d'enquête à cette adresse. Vérifiez que le lien que vous avez reçu est complet ; l'enquête a aussi pu être supprimée, ou ne pas être encore ouverte.
not-found-nothing-sent = Rien n'a été envoyé depuis cette page.
error-title = Un problème est survenu
error-body = Le serveur n'a pas pu traiter cette requête (erreur { $status }). Veuillez réessayer plus tard.
