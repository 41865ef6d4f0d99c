# French messages of locales/en/form.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

## Before the questions

preview-banner = Aperçu : voici le formulaire tel que les personnes interrogées le verront. Rien ne peut être envoyé d'ici.
preview-back = Retour à l'éditeur
intro-run-by = Cette enquête est menée par { $researcher }.
intro-contact = Pour toute question : { $contact }.
consent-heading = Information et consentement
consent-agree = J'ai lu les informations ci-dessus et j'accepte de participer.
consent-hint = L'envoi sera possible une fois que vous aurez coché que vous acceptez.
question-missing = Pas encore de réponse.
privacy-heading = Comment vos réponses sont protégées
privacy-coins = Avant que quoi que ce soit ne quitte cet appareil, celui-ci lance des pièces biaisées : pour chaque question, il envoie soit votre vraie réponse, soit une réponse aléatoire, comme expliqué sous la question. Le serveur ne sait jamais laquelle des deux ; vous pouvez donc nier de façon crédible chaque réponse qu'il détient. Sur un grand nombre de personnes, les tirages se compensent, ce qui permet tout de même à l'équipe de recherche de connaître les proportions globales.
privacy-sent = Seules les réponses issues du tirage (les { $reports }) sont envoyées : aucune vraie réponse, aucun cookie, aucun nom. Le niveau de confidentialité de l'enquête entière est { $epsilon } (la somme sur ses questions ; plus il est petit, mieux vous êtes protégé).
privacy-reports-term = déclarations
privacy-owner-totals = L'équipe de recherche ne voit que des totaux d'au moins { $k } réponses{ $after ->
        [yes] , et aucun avant la clôture de l'enquête
       *[no] {""}
    } ; qui gère ce serveur, ou envoie de fausses réponses, pourrait encore isoler la vôtre : c'est le tirage qui vous protège.
privacy-answer-all = Veuillez répondre à chaque question. Chaque réponse est randomisée, aucune ne peut donc être retenue contre vous ; une question laissée vide ne le serait pas, et un blanc en dit long lui aussi.
status-draft = Cette enquête n'est pas encore ouverte : rien ne peut être envoyé.
status-closed = Cette enquête est close : rien ne peut être envoyé.
needs-javascript = Cette enquête nécessite JavaScript : un petit programme randomise vos réponses sur votre appareil avant tout envoi. Sans lui, rien ne peut être envoyé, et rien n'a été envoyé.
needs-webassembly = Votre navigateur ne peut pas exécuter WebAssembly ou ne dispose pas d'un générateur aléatoire sûr, dont cette enquête a besoin pour randomiser vos réponses sur votre appareil. Rien ne peut être envoyé, et rien n'a été envoyé.

# Inside another website's frame (issue 35), followed by a link to the survey's own address.
frame-notice =
    Vous répondez à l'intérieur de la page d'un autre site, qui n'affiche pas de barre
    d'adresse. Pour vérifier qu'il s'agit bien de la vraie enquête, ouvrez-la dans un onglet
    à part :
# Near the send button when the browser lets this page keep nothing on the device.
storage-warning =
    Ce navigateur ne permet pas à cette page de garder quoi que ce soit sur votre appareil.
    Vos réponses sont randomisées une seule fois, à l'envoi : restez sur cette page jusqu'à ce
    qu'elle affiche « Envoyé ». Si la page est rechargée ou fermée avant, elle oublie que vous
    avez répondu, et répondre à nouveau ferait de nouveaux tirages, ce qui affaiblit votre
    protection (une invitation, si vous en avez une, n'est utilisée qu'à l'envoi).

## A revisit from the same browser

memo-heading = Déjà répondu sur cet appareil
memo-body = Ce navigateur a déjà répondu à cette enquête. Il ne conserve que les déclarations randomisées ci-dessous (jamais vos vraies réponses), afin de ne jamais relancer les pièces pour les mêmes questions : de nouveaux tirages à chaque fois finiraient, mis bout à bout, par révéler vos vraies réponses. Rien de plus ne sera envoyé d'ici.
memo-shared = Sur un appareil partagé, ou pour répondre à nouveau en tant qu'autre personne, faites oublier cette enquête à cet appareil.
forget-button = Oublier cette enquête sur cet appareil

## The questions

answer-yes = Oui
answer-no = Non
number-label = Votre nombre, de { $min } à { $max }
number-slider = Votre nombre, de { $min } à { $max } (curseur)
details-summary = Que peut-on apprendre de la déclaration ?
send-button = Randomiser et envoyer

## After sending

sent-heading = Envoyé
sent-intro = Le serveur n'a reçu que ces déclarations randomisées :
sent-explain = Une déclaration peut différer de votre vraie réponse : pour chaque question, votre appareil a envoyé une réponse aléatoire avec la probabilité indiquée sous celle-ci. C'est ce qui vous protège. Quiconque voit une déclaration (l'équipe de recherche, le serveur ou toute personne qui s'y introduirait) ne peut pas savoir s'il s'agit de votre vraie réponse ou de celle de la pièce ; seules les proportions sur de nombreuses personnes peuvent être estimées.
receipt-heading = Votre reçu
receipt-once = Il n'est affiché que cette fois : cet appareil ne le conserve pas. Gardez-le secret, car quiconque le détient peut consulter ou retirer vos déclarations. Le serveur n'en stocke qu'une empreinte (hash) ; il ne peut donc pas savoir à qui appartient chaque réponse.
receipt-copy = Copier
receipt-download = Télécharger (.txt)
receipt-link = Avec ce reçu, vous pouvez { $link }.
receipt-link-text = consulter ou retirer votre réponse
sent-kept = Cet appareil conserve encore les déclarations ci-dessus (jamais vos vraies réponses), afin qu'on ne puisse pas lui faire répondre deux fois à cette enquête avec de nouveaux tirages. Sur un appareil partagé, faites-les-lui oublier.

# After the receipt: the link back to the study that sent the respondent here.
continue-link = Continuer
continue-missing =
    Les informations du lien par lequel vous êtes arrivé ont disparu, car cette page a été
    rechargée : le lien ci-dessus ne les contient donc pas. Rouvrir votre lien d'origine les
    rétablit.

## Messages of the form's script

js-trying-again = Nouvelle tentative…
js-why-no-answer = pas de réponse du serveur
js-why-status = le serveur a répondu { $status }
js-retrying = Serveur occupé ({ $why }), nouvelle tentative dans { $seconds } s. Vos déclarations sont conservées sur cet appareil et seront envoyées telles quelles : aucune pièce n'est relancée.
js-reported = { $number }. { $question } — déclaré : { $report }
js-forgot = Cet appareil a oublié cette enquête. Répondre à nouveau relance les pièces.
js-copied = Copié.
js-selected = Sélectionné : copiez-le avec la commande de copie de votre appareil.
js-receipt-file-title = Reçu Deniable pour l'enquête « { $title } »
js-receipt-file-link = Pour consulter ou retirer votre réponse : { $url }
js-receipt-file-secret = Gardez-le secret : quiconque le détient peut consulter ou retirer vos déclarations.
js-downloaded = Téléchargé sous le nom { $file }.
js-sent-forgot = Cet appareil a oublié cette enquête : il n'en conserve plus rien.
js-refused-closed = L'enquête a été close avant l'arrivée de vos déclarations. Rien de plus ne sera envoyé depuis cet appareil.
js-refused-withdrawn = Cette réponse a été retirée et ne peut pas être renvoyée. Rien de plus ne sera envoyé depuis cet appareil.
js-refused-invitation = Cette invitation est inconnue ou a déjà été utilisée. Rien de plus ne sera envoyé depuis cet appareil.
js-refused = Le serveur a refusé les déclarations (erreur { $status }). Rien de plus ne sera envoyé depuis cet appareil.
js-randomizing = Randomisation sur cet appareil…
js-cannot-load = Impossible de charger l'enquête (pas de réponse ou une erreur) ; rien n'a été envoyé. Réessayez plus tard.
js-not-open = Cette enquête n'est pas ouverte ; rien n'a été envoyé.
js-needs-invitation = Cette enquête nécessite votre lien d'invitation personnel. Rien n'a été envoyé.
js-needs-consent = Veuillez d'abord cocher que vous acceptez de participer. Rien n'a été envoyé.
js-slider-unset = aucune valeur choisie
js-needs-whole-number = La question { $number } attend un nombre entier de { $min } à { $max }. Rien n'a été envoyé.
js-needs-number = La question { $number } attend un nombre de { $min } à { $max }. Rien n'a été envoyé.
js-missing-one = Veuillez répondre à la question { $numbers } : chaque question est randomisée, aucune réponse ne peut donc être retenue contre vous. Rien n'a été envoyé.
js-missing-many = Veuillez répondre aux questions { $numbers } : chaque question est randomisée, aucune réponse ne peut donc être retenue contre vous. Rien n'a été envoyé.
js-list-and = { $items } et { $last }
js-other-tab = Cet appareil vient de répondre à cette enquête dans un autre onglet ; rien de plus n'a été envoyé.
js-sending = Envoi en cours…
js-sending-stored = Envoi de vos déclarations enregistrées…

## Messages du script des invitations (form-tokens.js)

js-token-exchanging = Échange de votre invitation contre un jeton anonyme sur cet appareil…
js-token-waiting = Échange de votre invitation : le serveur n'a pas encore répondu ; nouvel essai…
js-token-ready =
    Votre invitation a été échangée contre un jeton anonyme sur cet appareil : les organisateurs
    apprennent que vous avez participé, jamais quelles réponses sont les vôtres. Empreinte de la
    clé de l'enquête : { $fingerprint } (celle de votre lien d'invitation).
js-token-used =
    Cette invitation a déjà été utilisée (depuis un autre appareil ou navigateur, ou après que ce
    navigateur l'a oubliée). Demandez une nouvelle invitation aux organisateurs. Rien n'a été
    envoyé.
js-token-invalid = Ce lien d'invitation n'est pas valable pour cette enquête. Rien n'a été envoyé.
js-token-closed = Cette enquête est close : l'invitation ne peut plus être utilisée. Rien n'a été envoyé.
js-token-failed = L'invitation n'a pas pu être échangée (erreur { $status }). Rien n'a été envoyé.
js-token-unsupported = Ce navigateur ne peut pas exécuter le module de jetons de l'enquête. Rien n'a été envoyé.
js-key-mismatch =
    La clé d'enquête que présente ce serveur (empreinte { $server }…) n'est pas celle pour laquelle
    votre lien d'invitation a été créé ({ $link }…). Un serveur pourrait vous reconnaître grâce à
    une clé propre ; cette page ne l'utilisera donc pas. Rien n'a été envoyé ; prévenez les
    organisateurs.
js-key-missing =
    Ce lien d'invitation n'indique pas pour quelle clé d'enquête il a été créé : cette page ne
    peut donc pas vérifier que tous reçoivent la même clé. Rien n'a été envoyé ; demandez un
    nouveau lien.
js-key-not-published = Cette enquête ne publie aucune clé pour les invitations : ce lien ne peut pas servir ici. Rien n'a été envoyé.
js-key-other-token = Cet appareil détient déjà un jeton pour cette enquête, obtenu avec un lien pour une autre clé d'enquête. Rien n'a été envoyé.
js-proof-rejected =
    La réponse du serveur n'a pas été produite avec la clé de l'enquête ; cette page ne l'utilisera
    donc pas. Rien n'a été envoyé ; prévenez les organisateurs.

## Grouping questions (issue 18): not randomized, rendered like a choice.
grouping-plain = Cette réponse est envoyée telle que vous la donnez — elle n’est pas randomisée.
grouping-observer =
    Le serveur et le chercheur voient cette réponse telle que vous la donnez. Les résultats
    ne la montrent que pour des groupes d’au moins { $k } répondants.
grouping-unrandomized = Non randomisées, envoyées telles que vous les donnez : { $questions }
