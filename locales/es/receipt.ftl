# Spanish messages of locales/en/receipt.ftl, which says where each is used and what its
# variables hold. Keep the meaning exact: these are privacy promises.

receipt-page-title = Su respuesta
receipt-page-heading = Su respuesta a «{ $title }»
receipt-page-intro = Pegue el comprobante que recibió después de responder. Con él puede ver las declaraciones aleatorizadas que el servidor guarda de usted, o retirarlas. El comprobante se envía en el cuerpo de la solicitud, nunca en una dirección, y el servidor solo guarda un hash de un hash de él.
found-heading = Guardado para este comprobante
found-explain = Estas son las declaraciones aleatorizadas, no sus respuestas verdaderas: cada una puede diferir de lo que eligió, y eso es lo que le protege.
found-report = { $number }. { $question } — declaración: { $report }
found-grouping = { $number }. { $question } — { $answer } (enviada tal como la dio, no aleatorizada)
receipt-withdraw-warning = Retirar borra su respuesta de los archivos del servidor. Si ya se contaba en los resultados del equipo investigador, el cambio de esos totales le muestra sus declaraciones aleatorizadas (nunca sus respuestas verdaderas).
found-record = Su fila en la exportación del equipo investigador se llama { $record } (el SHA-256 del identificador de su respuesta).
withdrawn-heading = Retirada
withdrawn-body = Su respuesta ya no está en los archivos del servidor, y las estimaciones ya no la cuentan. No puede enviarse de nuevo.
receipt-not-found = No hay nada guardado para este comprobante en esta encuesta: compruebe que esté completo (43 caracteres); también puede que la respuesta se haya retirado.
receipt-label = Comprobante
receipt-help = 43 letras, dígitos, «-» y «_».
receipt-view = Ver mis declaraciones
receipt-withdraw = Retirar mi respuesta
back-to-survey = Volver a la encuesta

withdraw-confirm-heading = ¿Retirar esta respuesta?
withdraw-confirm-body = La retirada no se puede deshacer: sus declaraciones se borran del servidor, y este recibo ya nunca podrá enviarlas ni mostrarlas.
withdraw-confirm-yes = Sí, retirarla definitivamente
withdraw-confirm-keep = No, conservar mi respuesta

js-withdrawn-dropped = Este navegador aún intentaba enviar estas declaraciones; las ha descartado y no volverá a enviarlas.
js-withdrawn-remembered = Este navegador recuerda que respondió esta encuesta, así que su formulario no volverá a enviar. Su botón «Olvidar esta encuesta en este dispositivo» también borra eso.
