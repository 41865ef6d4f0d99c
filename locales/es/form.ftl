# Spanish messages of locales/en/form.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

## Before the questions

preview-banner = Vista previa: así verán el formulario las personas encuestadas. Desde aquí no se puede enviar nada.
preview-back = Volver al editor
intro-run-by = Esta encuesta la realiza { $researcher }.
intro-contact = Si tiene preguntas: { $contact }.
consent-heading = Información y consentimiento
consent-agree = He leído la información anterior y acepto participar.
consent-hint = Podrá enviar cuando haya marcado que está de acuerdo.
question-missing = Aún sin responder.
privacy-heading = Cómo se protegen sus respuestas
privacy-coins = Antes de que nada salga de este dispositivo, este lanza monedas sesgadas: para cada pregunta envía o bien su respuesta verdadera o bien una aleatoria, como se explica debajo de la pregunta. El servidor nunca sabe cuál de las dos, así que usted puede negar de forma creíble cualquier respuesta que guarde. Entre muchas personas los lanzamientos se compensan, y así el equipo investigador puede conocer igualmente las proporciones generales.
privacy-sent = Solo se envían las respuestas resultantes del lanzamiento (las { $reports }): ninguna respuesta verdadera, ninguna cookie, ningún nombre. El nivel de privacidad de toda la encuesta es { $epsilon } (la suma de sus preguntas; cuanto menor, más privado).
privacy-reports-term = declaraciones
privacy-owner-totals = El equipo investigador solo ve totales de al menos { $k } respuestas{ $after ->
        [yes] , y ninguno antes de que cierre la encuesta
       *[no] {""}
    }; quien gestiona este servidor, o envía respuestas falsas, aún podría aislar la suya: lo que le protege es el lanzamiento de monedas.
privacy-answer-all = Por favor, responda todas las preguntas. Cada respuesta se aleatoriza, así que ninguna puede usarse en su contra; una pregunta en blanco no se aleatorizaría, y un blanco también dice algo.
status-draft = Esta encuesta aún no está abierta: no se puede enviar nada.
status-closed = Esta encuesta está cerrada: no se puede enviar nada.
needs-javascript = Esta encuesta necesita JavaScript: un pequeño programa aleatoriza sus respuestas en su dispositivo antes de enviar nada. Sin él no se puede enviar nada, y no se ha enviado nada.
needs-webassembly = Su navegador no puede ejecutar WebAssembly o carece de un generador aleatorio seguro, que esta encuesta necesita para aleatorizar sus respuestas en su dispositivo. No se puede enviar nada, y no se ha enviado nada.

# Inside another website's frame (issue 35), followed by a link to the survey's own address.
frame-notice =
    Está respondiendo dentro de la página de otro sitio web, que no muestra barra de
    direcciones. Para comprobar que esta es la encuesta auténtica, ábrala en una pestaña
    propia:
# Near the send button when the browser lets this page keep nothing on the device.
storage-warning =
    Este navegador no permite a esta página recordar nada en su dispositivo. Sus respuestas se
    aleatorizan una sola vez, al enviarlas: permanezca en esta página hasta que indique
    «Enviado». Si la página se recarga o se cierra antes, olvida que usted respondió, y
    responder de nuevo lanzaría monedas nuevas, lo que debilita su protección (una
    invitación, si tiene una, solo se usa al enviar).

## A revisit from the same browser

memo-heading = Ya respondida en este dispositivo
memo-body = Este navegador ya respondió esta encuesta. Solo guarda las declaraciones aleatorizadas de abajo (nunca sus respuestas verdaderas) para no lanzar nunca monedas nuevas para las mismas preguntas: monedas nuevas cada vez acabarían, sumadas, revelando sus respuestas verdaderas. Desde aquí no se enviará nada más.
memo-shared = En un dispositivo compartido, o para responder de nuevo como otra persona, haga que este dispositivo la olvide.
forget-button = Olvidar esta encuesta en este dispositivo

## The questions

answer-yes = Sí
answer-no = No
number-label = Su número, de { $min } a { $max }
number-slider = Su número, de { $min } a { $max } (control deslizante)
details-summary = ¿Qué puede saber alguien a partir de la declaración?
send-button = Aleatorizar y enviar

## After sending

sent-heading = Enviado
sent-intro = El servidor recibió solo estas declaraciones aleatorizadas:
sent-explain = Una declaración puede diferir de su respuesta verdadera: para cada pregunta, su dispositivo envió una respuesta aleatoria con la probabilidad indicada debajo de ella. Eso es lo que le protege. Nadie que vea una declaración (el equipo investigador, el servidor o quien logre entrar en él) puede saber si es su respuesta verdadera o la de la moneda; solo pueden estimarse las proporciones entre muchas personas.
receipt-heading = Su comprobante
receipt-once = Solo se muestra esta vez: este dispositivo no lo guarda. Manténgalo en secreto, ya que quien lo tenga puede ver o retirar sus declaraciones. El servidor solo guarda un hash de él, así que no puede saber qué respuesta es de quién.
receipt-copy = Copiar
receipt-download = Descargar (.txt)
receipt-link = Con este comprobante puede { $link }.
receipt-link-text = ver o retirar su respuesta
sent-kept = Este dispositivo aún guarda las declaraciones de arriba (nunca sus respuestas verdaderas), para que no se le pueda hacer responder esta encuesta dos veces con monedas nuevas. En un dispositivo compartido, haga que las olvide.

# After the receipt: the link back to the study that sent the respondent here.
continue-link = Continuar
continue-missing =
    Los datos del enlace por el que llegó se han perdido porque esta página se recargó, así
    que el enlace de arriba no los incluye. Abrir de nuevo su enlace original los rellena.

## Messages of the form's script

js-trying-again = Reintentando…
js-why-no-answer = sin respuesta del servidor
js-why-status = el servidor respondió { $status }
js-retrying = Servidor ocupado ({ $why }); nuevo intento en { $seconds } s. Sus declaraciones se guardan en este dispositivo y se enviarán sin cambios: no se lanzan monedas nuevas.
js-reported = { $number }. { $question } — declarado: { $report }
js-forgot = Este dispositivo olvidó esta encuesta. Responder de nuevo lanza monedas nuevas.
js-copied = Copiado.
js-selected = Seleccionado: cópielo con la función de copiar de su dispositivo.
js-receipt-file-title = Comprobante de Deniable para la encuesta «{ $title }»
js-receipt-file-link = Para ver o retirar su respuesta: { $url }
js-receipt-file-secret = Manténgalo en secreto: quien lo tenga puede ver o retirar sus declaraciones.
js-downloaded = Descargado como { $file }.
js-sent-forgot = Este dispositivo olvidó esta encuesta: ya no guarda nada de ella.
js-refused-closed = La encuesta se cerró antes de que llegaran sus declaraciones. No se enviará nada más desde este dispositivo.
js-refused-withdrawn = Esta respuesta se retiró y no puede enviarse de nuevo. No se enviará nada más desde este dispositivo.
js-refused-invitation = Esta invitación es desconocida o ya se ha usado. No se enviará nada más desde este dispositivo.
js-refused = El servidor rechazó las declaraciones (error { $status }). No se enviará nada más desde este dispositivo.
js-randomizing = Aleatorizando en este dispositivo…
js-cannot-load = No se puede cargar la encuesta (sin respuesta o con un error); no se envió nada. Inténtelo más tarde.
js-not-open = Esta encuesta no está abierta; no se envió nada.
js-needs-invitation = Esta encuesta necesita su enlace de invitación personal. No se envió nada.
js-needs-consent = Marque primero que acepta participar. No se envió nada.
js-slider-unset = aún no se eligió ningún valor
js-needs-whole-number = La pregunta { $number } necesita un número entero de { $min } a { $max }. No se envió nada.
js-needs-number = La pregunta { $number } necesita un número de { $min } a { $max }. No se envió nada.
js-missing-one = Por favor, responda la pregunta { $numbers }: cada pregunta se aleatoriza, así que ninguna respuesta puede usarse en su contra. No se envió nada.
js-missing-many = Por favor, responda las preguntas { $numbers }: cada pregunta se aleatoriza, así que ninguna respuesta puede usarse en su contra. No se envió nada.
js-list-and = { $items } y { $last }
js-other-tab = Este dispositivo acaba de responder esta encuesta en otra pestaña; no se envió nada más.
js-sending = Enviando…
js-sending-stored = Enviando sus declaraciones guardadas…

## Mensajes del script de invitaciones (form-tokens.js)

js-token-exchanging = Canjeando su invitación por un token anónimo en este dispositivo…
js-token-waiting = Canjeando su invitación: el servidor aún no ha respondido; reintentando…
js-token-ready =
    Su invitación se canjeó por un token anónimo en este dispositivo: los organizadores saben que
    usted participó, nunca qué respuestas son suyas. Huella de la clave de la encuesta:
    { $fingerprint } (la de su enlace de invitación).
js-token-used =
    Esta invitación ya se ha usado (desde otro dispositivo o navegador, o después de que este
    navegador la olvidara). Pida una nueva invitación a los organizadores. No se envió nada.
js-token-invalid = Este enlace de invitación no es válido para esta encuesta. No se envió nada.
js-token-closed = Esta encuesta está cerrada: la invitación ya no puede usarse. No se envió nada.
js-token-failed = No se pudo canjear la invitación (error { $status }). No se envió nada.
js-token-unsupported = Este navegador no puede ejecutar el módulo de tokens de la encuesta. No se envió nada.
js-key-mismatch =
    La clave de encuesta que presenta este servidor (huella { $server }…) no es aquella para la que
    se creó su enlace de invitación ({ $link }…). Un servidor podría reconocerle con una clave
    propia, así que esta página no la usará. No se envió nada; avise a los organizadores.
js-key-missing =
    Este enlace de invitación no indica para qué clave de encuesta se creó, así que esta página no
    puede comprobar que todos reciben la misma clave. No se envió nada; pida un enlace nuevo.
js-key-not-published = Esta encuesta no publica ninguna clave para invitaciones, así que este enlace no puede usarse aquí. No se envió nada.
js-key-other-token = Este dispositivo ya tiene un token para esta encuesta, obtenido con un enlace para otra clave de encuesta. No se envió nada.
js-proof-rejected =
    La respuesta del servidor no se generó con la clave de la encuesta, así que esta página no la
    usará. No se envió nada; avise a los organizadores.

## Grouping questions (issue 18): not randomized, rendered like a choice.
grouping-plain = Esta respuesta se envía tal como la da: no se aleatoriza.
grouping-observer =
    El servidor y el investigador ven esta respuesta tal como la da. Los resultados la
    muestran solo para grupos de al menos { $k } personas.
grouping-unrandomized = No aleatorizadas, se envían tal como las da: { $questions }
