# French messages of locales/en/receipt.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

receipt-page-title = Votre réponse
receipt-page-heading = Votre réponse à « { $title } »
receipt-page-intro = Collez le reçu qui vous a été remis après avoir répondu. Il vous permet de voir les déclarations randomisées que le serveur conserve pour vous, ou de les retirer. Le reçu est envoyé dans le corps de la requête, jamais dans une adresse, et le serveur n'en conserve que l'empreinte d'une empreinte.
found-heading = Enregistré pour ce reçu
found-explain = Ce sont les déclarations randomisées, pas vos vraies réponses : chacune peut différer de votre choix, et c'est ce qui vous protège.
found-report = { $number }. { $question } — déclaration : { $report }
found-grouping = { $number }. { $question } — { $answer } (envoyée telle quelle, non randomisée)
receipt-withdraw-warning = Retirer efface votre réponse des fichiers du serveur. Si elle était déjà comptée dans les résultats de l'équipe de recherche, le changement de ces totaux lui montre vos déclarations tirées au sort (jamais vos vraies réponses).
found-record = Votre ligne dans l'export de l'équipe de recherche s'appelle { $record } (le SHA-256 de l'identifiant de votre réponse).
withdrawn-heading = Retirée
withdrawn-body = Votre réponse a disparu des fichiers du serveur, et les estimations ne la comptent plus. Elle ne peut pas être renvoyée.
receipt-not-found = Rien n'est enregistré pour ce reçu dans cette enquête : vérifiez qu'il est complet (43 caractères) ; la réponse a peut-être aussi été retirée.
receipt-label = Reçu
receipt-help = 43 lettres, chiffres, « - » et « _ ».
receipt-view = Voir mes déclarations
receipt-withdraw = Retirer ma réponse
back-to-survey = Retour à l'enquête

withdraw-confirm-heading = Retirer cette réponse ?
withdraw-confirm-body = Le retrait est définitif : vos déclarations sont supprimées du serveur, et ce reçu ne pourra plus jamais les envoyer ni les afficher.
withdraw-confirm-yes = Oui, la retirer définitivement
withdraw-confirm-keep = Non, garder ma réponse

js-withdrawn-dropped = Ce navigateur essayait encore d'envoyer ces déclarations ; il les a abandonnées et ne les enverra plus.
js-withdrawn-remembered = Ce navigateur se souvient d'avoir répondu à cette enquête ; son formulaire n'enverra donc plus rien. Son bouton « Oublier cette enquête sur cet appareil » efface aussi ce souvenir.
